#include "src/03_hooked/hooks/second_or_step_timer.h"

#include <cmath>
#include <string>

#include "src/platform/errors.h"

namespace mts {

SecondOrStepTimer::SecondOrStepTimer(std::optional<double> every_secs,
                                     std::optional<int64_t> every_steps, Clock* clock)
    : every_steps_(every_steps),
      clock_(clock != nullptr ? clock : RealClock()) {
  if (!every_secs && !every_steps) {
    throw ValueError("Either every_secs or every_steps should be provided.");
  }
  if (every_secs && every_steps) {
    throw ValueError("Can not provide both every_secs and every_steps.");
  }
  // Beyond TensorFlow, which would trigger on every step: a negative interval is a mistake.
  if (every_steps && *every_steps < 0) {
    throw ValueError("every_steps must be >= 0, got " + std::to_string(*every_steps) +
                     ". Pass how many steps apart the hook should act (0: every step).");
  }
  if (every_secs && !(*every_secs >= 0)) {
    throw ValueError("every_secs must be >= 0, got " + std::to_string(*every_secs) +
                     ". Pass how many seconds apart the hook should act (0: every step).");
  }
  if (every_secs) every_micros_ = std::llround(*every_secs * 1e6);
}

// [mts:timer-trigger]
bool SecondOrStepTimer::ShouldTriggerForStep(int64_t step) const {
  if (!last_triggered_step_) return true;             // The first step always triggers.
  if (*last_triggered_step_ == step) return false;    // A step never triggers twice.
  if (every_micros_) return clock_->NowMicros() >= *last_triggered_micros_ + *every_micros_;
  return step >= *last_triggered_step_ + *every_steps_;
}
// [mts:timer-trigger-end]

SecondOrStepTimer::Elapsed SecondOrStepTimer::UpdateLastTriggeredStep(int64_t step) {
  const int64_t now = clock_->NowMicros();
  Elapsed elapsed;
  if (last_triggered_micros_) {
    elapsed.secs = static_cast<double>(now - *last_triggered_micros_) / 1e6;
    elapsed.steps = step - *last_triggered_step_;
  }
  last_triggered_micros_ = now;
  last_triggered_step_ = step;
  return elapsed;
}

void SecondOrStepTimer::Reset() {
  last_triggered_micros_.reset();
  last_triggered_step_.reset();
}

}  // namespace mts
