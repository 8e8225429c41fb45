// The EvaluationHook exercise of chapter 06: the hook's Begin(), BeforeRun(), AfterRun() and
// End(), so that evaluation_hook_test passes (the constructor is given). The parts to write
// lie between the `[mts:lab evaluation_hook]` markers; the comment outside them says what
// to decide.
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
// TODO(student): the contract is in the header. Decide when to evaluate from what one fetch
// gives you at no extra cost (the step read at the start of the run), knowing that the step
// can jump by more than one and can go back to 0 after a recovery; and decide which step an
// evaluation is recorded at, so that the step and the value belong together. Which session
// do the evaluation runs use, and why not the one the loop runs?
void EvaluationHook::Begin() {
  // [mts:lab evaluation_hook]
  std::optional<Output> read = GetOrCreateGlobalStepRead();
  if (!read) {
    throw RuntimeError(
        "EvaluationHook needs a global step; create it with GetOrCreateGlobalStep() before "
        "the session.");
  }
  global_step_read_ = *read;
  // [mts:lab-end]
}

SessionRunArgs EvaluationHook::BeforeRun(SessionRunContext& run_context) {
  // [mts:lab evaluation_hook]
  SessionRunArgs args;
  args.fetches = {global_step_read_};
  return args;
  // [mts:lab-end]
}

void EvaluationHook::AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) {
  // [mts:lab evaluation_hook]
  // The read holds the step from before this run's increment: +1 is an estimate.
  const int64_t before = run_values.results[0].scalar<int64_t>();
  // Below the last evaluation: the model was rolled back (a recovery without a
  // checkpoint, an older one restored). Count N steps from where it resumed.
  if (before < last_step_) last_step_ = before;
  // "At least N since the last one", not "a multiple of N": a step that jumps (other
  // workers, several updates per step) would skip the multiple.
  if (before + 1 < last_step_ + every_n_steps_) return;
  // The raw session: a run through the hooks would call every hook again, this one too.
  // The exact step comes in the same run as the metric, so the two belong together.
  const std::vector<Tensor> values = run_context.session().Run({global_step_read_, eval_metric_});
  last_step_ = values[0].scalar<int64_t>();
  evaluations_.push_back({last_step_, values[1].scalar<float>()});
  // [mts:lab-end]
}

void EvaluationHook::End(SessionInterface& session) {
  // [mts:lab evaluation_hook]
  const int64_t step = GlobalStepValue(session, global_step_read_);
  final_evaluation_ = Evaluation{step, session.Run(eval_metric_).scalar<float>()};
  // [mts:lab-end]
}
// [mts:exercise-todo-end]

}  // namespace mts
