#include "src/03_hooked/hooks/stop_at_step_hook.h"

#include <string>

#include "src/01_session/training_util.h"
#include "src/platform/errors.h"

namespace mts {

StopAtStepHook::StopAtStepHook(std::optional<int64_t> num_steps,
                               std::optional<int64_t> last_step)
    : num_steps_(num_steps), last_step_(last_step) {
  if (!num_steps && !last_step) {
    throw ValueError("One of num_steps or last_step must be specified.");
  }
  if (num_steps && last_step) {
    throw ValueError("Only one of num_steps or last_step can be specified.");
  }
  // Beyond TensorFlow, which would stop after the first step: a negative count is a mistake.
  if (num_steps && *num_steps < 0) {
    throw ValueError("num_steps must be >= 0, got " + std::to_string(*num_steps) +
                     ": it counts the steps to run after the first session's global step. "
                     "Pass a step count, or last_step for an absolute step.");
  }
}

void StopAtStepHook::Begin() {
  std::optional<Output> read = GetOrCreateGlobalStepRead();
  if (!read) throw RuntimeError("Global step should be created to use StopAtStepHook.");
  global_step_read_ = *read;
}

void StopAtStepHook::AfterCreateSession(SessionInterface& session, Coordinator* coord) {
  // Only the first session fixes the target: after a recovery, "num_steps more" would
  // otherwise move the goal further away each time.
  if (last_step_) return;
  last_step_ = session.Run(global_step_read_).scalar<int64_t>() + *num_steps_;
}

SessionRunArgs StopAtStepHook::BeforeRun(SessionRunContext& run_context) {
  SessionRunArgs args;
  args.fetches = {global_step_read_};
  return args;
}

// [mts:stop-at-step]
void StopAtStepHook::AfterRun(SessionRunContext& run_context,
                              const SessionRunValues& run_values) {
  // 1. The fetched step is from before this run's increment: estimate the step after it.
  const int64_t estimate = run_values.results[0].scalar<int64_t>() + 1;
  if (estimate < *last_step_) return;
  // 2. The estimate says we may be there; the run may not have incremented the step (it
  //    need not run the train op), so confirm with an exact read before stopping.
  const int64_t step = run_context.session().Run(global_step_read_).scalar<int64_t>();
  if (step >= *last_step_) run_context.RequestStop();
}
// [mts:stop-at-step-end]

}  // namespace mts
