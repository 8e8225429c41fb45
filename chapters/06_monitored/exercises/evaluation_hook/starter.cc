// Starter for the EvaluationHook exercise.
#include <string>

#include "chapters/06_monitored/exercises/evaluation_hook/evaluation_hook.h"
#include "src/platform/errors.h"
#include "src/01_session/training_util.h"

namespace mts {

EvaluationHook::EvaluationHook(Output eval_metric, int64_t every_n_steps)
    : eval_metric_(eval_metric), every_n_steps_(every_n_steps) {
  if (every_n_steps < 1) {
    throw ValueError("every_n_steps must be at least 1, got " + std::to_string(every_n_steps) +
                     ".");
  }
}

// [mts:exercise-todo]
void EvaluationHook::Begin() {
  // TODO: keep the global step's read tensor (GetOrCreateGlobalStepRead) in
  // global_step_read_; throw RuntimeError("EvaluationHook needs a global step; ...") if
  // there is none.
}

SessionRunArgs EvaluationHook::BeforeRun(SessionRunContext& run_context) {
  // TODO: ask for global_step_read_ in the run's fetches.
  return {};
}

void EvaluationHook::AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) {
  // TODO: the step after this run is the fetched value (run_values.results[0], an int64
  // scalar) plus one. When it is a multiple of every_n_steps_, run eval_metric_ on
  // run_context.session() (not through the hooks) and append {step, value} to evaluations_.
}

void EvaluationHook::End(SessionInterface& session) {
  // TODO: read the exact global step from `session` (GlobalStepValue), run eval_metric_,
  // and keep both in final_evaluation_.
}
// [mts:exercise-todo-end]

}  // namespace mts
