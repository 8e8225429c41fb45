#include "src/03_hooked/hooks/global_step_waiter_hook.h"

#include "src/01_session/training_util.h"
#include "src/platform/errors.h"
#include "src/platform/logging.h"

namespace mts {

namespace {

constexpr int64_t kPollMicros = 500000;   // Half a second between reads.
constexpr int64_t kStepsBetweenLogs = 1000;

}  // namespace

GlobalStepWaiterHook::GlobalStepWaiterHook(int64_t wait_until_step, Clock* clock)
    : wait_until_step_(wait_until_step), clock_(clock != nullptr ? clock : RealClock()) {}

void GlobalStepWaiterHook::Begin() {
  worker_is_started_ = false;
  std::optional<Output> read = GetOrCreateGlobalStepRead();
  if (!read) {
    // TensorFlow's message names its private class; kept so logs match.
    throw RuntimeError("Global step should be created to use _GlobalStepWaiterHook.");
  }
  global_step_read_ = *read;
}

SessionRunArgs GlobalStepWaiterHook::BeforeRun(SessionRunContext& run_context) {
  if (worker_is_started_) return {};
  if (wait_until_step_ <= 0) {
    worker_is_started_ = true;
    return {};
  }
  MTS_LOG(INFO) << "Waiting for global step " << wait_until_step_ << " before starting training.";
  int64_t last_logged_step = 0;
  while (true) {
    const int64_t step = run_context.session().Run(global_step_read_).scalar<int64_t>();
    if (step >= wait_until_step_) break;
    if (step - last_logged_step > kStepsBetweenLogs) {
      MTS_LOG(INFO) << "Waiting for global step " << wait_until_step_
                    << " before starting training. Current step is " << step << ".";
      last_logged_step = step;
    }
    clock_->SleepForMicros(kPollMicros);
  }
  worker_is_started_ = true;
  return {};
}

}  // namespace mts
