// Starter for the EvaluationHook exercise.
#include <string>

#include "chapters/06_monitored/exercises/evaluation_hook/evaluation_hook.h"
#include "src/01_session/training_util.h"
#include "src/platform/errors.h"

namespace mts {

EvaluationHook::EvaluationHook(Output eval_metric, int64_t every_n_steps)
    : eval_metric_(eval_metric), every_n_steps_(every_n_steps) {
  if (every_n_steps < 1) {
    throw ValueError("every_n_steps must be at least 1, got " + std::to_string(every_n_steps) +
                     ".");
  }
}

// [mts:exercise-todo]
// TODO: the contract is in the header. Decide when to evaluate from what one fetch gives
// you at no extra cost (the step read at the start of the run), knowing that the step can
// jump by more than one and can go back to 0 after a recovery; and decide which step an
// evaluation is recorded at, so that the step and the value belong together. Which session
// do the evaluation runs use, and why not the one the loop runs?
void EvaluationHook::Begin() {}

SessionRunArgs EvaluationHook::BeforeRun(SessionRunContext& run_context) { return {}; }

void EvaluationHook::AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) {}

void EvaluationHook::End(SessionInterface& session) {}
// [mts:exercise-todo-end]

}  // namespace mts
