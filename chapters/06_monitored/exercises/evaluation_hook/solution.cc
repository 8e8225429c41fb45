// Reference solution for the EvaluationHook exercise.
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

void EvaluationHook::Begin() {
  std::optional<Output> read = GetOrCreateGlobalStepRead();
  if (!read) {
    throw RuntimeError(
        "EvaluationHook needs a global step; create it with GetOrCreateGlobalStep() before "
        "the session.");
  }
  global_step_read_ = *read;
}

SessionRunArgs EvaluationHook::BeforeRun(SessionRunContext& run_context) {
  SessionRunArgs args;
  args.fetches = {global_step_read_};
  return args;
}

void EvaluationHook::AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) {
  // The read holds the step from before this run's increment.
  const int64_t step = run_values.results[0].scalar<int64_t>() + 1;
  if (step % every_n_steps_ != 0) return;
  // The raw session: a run through the hooks would call every hook again, this one too.
  const float value = run_context.session().Run(eval_metric_).scalar<float>();
  evaluations_.push_back({step, value});
}

void EvaluationHook::End(SessionInterface& session) {
  const int64_t step = GlobalStepValue(session, global_step_read_);
  final_evaluation_ = Evaluation{step, session.Run(eval_metric_).scalar<float>()};
}

}  // namespace mts
