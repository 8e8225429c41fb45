// second_or_step_timer.h: "every N seconds or every N steps", the one trigger rule the
// periodic hooks share.
//
// Stage 03, a helper of the hooks, not a layer. A timer is set to *either* seconds *or*
// steps. ShouldTriggerForStep(step) answers yes the first time, and never for the step that
// last triggered; UpdateLastTriggeredStep(step) records a trigger and returns the seconds
// and steps since the previous one; Reset() forgets the last trigger (a hook's Begin).
//
// Thread safety: none; a timer belongs to one hook, which one thread calls.
//
// Example:
//   SecondOrStepTimer timer = SecondOrStepTimer::EverySteps(100);
//   if (timer.ShouldTriggerForStep(step)) timer.UpdateLastTriggeredStep(step);
//
// TensorFlow: tf.train.SecondOrStepTimer (basic_session_run_hooks.py).
#ifndef MTS_SRC_03_HOOKED_HOOKS_SECOND_OR_STEP_TIMER_H_
#define MTS_SRC_03_HOOKED_HOOKS_SECOND_OR_STEP_TIMER_H_

#include <cstdint>
#include <optional>

#include "src/platform/clock.h"

namespace mts {

/// Triggers once every `every_secs` seconds or once every `every_steps` steps.
class SecondOrStepTimer {
 public:
  /// What passed between the previous trigger and this one; both empty on the first.
  struct Elapsed {
    std::optional<double> secs;   ///< Seconds since the previous trigger.
    std::optional<int64_t> steps; ///< Steps since the previous trigger.
  };

  /// A timer with exactly one interval: `every_secs` or `every_steps` (TensorFlow's keyword
  /// arguments; pass std::nullopt for the other). Time comes from `clock`, RealClock() if
  /// null; `every_secs` is rounded to the clock's whole microseconds.
  /// \throws ValueError "Either every_secs or every_steps should be provided." if neither
  ///   is given; ValueError("Can not provide both every_secs and every_steps.") if both are;
  ///   ValueError("every_steps must be >= 0, ...") or ("every_secs must be >= 0, ...") for a
  ///   negative or NaN interval (beyond TensorFlow).
  SecondOrStepTimer(std::optional<double> every_secs, std::optional<int64_t> every_steps,
                    Clock* clock = nullptr);

  /// A timer that triggers every `secs` seconds of `clock` (RealClock() if null).
  static SecondOrStepTimer EverySecs(double secs, Clock* clock = nullptr) {
    return SecondOrStepTimer(secs, std::nullopt, clock);
  }
  /// A timer that triggers every `steps` steps.
  static SecondOrStepTimer EverySteps(int64_t steps, Clock* clock = nullptr) {
    return SecondOrStepTimer(std::nullopt, steps, clock);
  }

  /// Whether a hook should act at `step`: true if the timer never triggered; false if `step`
  /// is the step it last triggered at; otherwise whether the interval has passed since then
  /// (now >= last time + every_secs, or step >= last step + every_steps). Changes nothing.
  bool ShouldTriggerForStep(int64_t step) const;

  /// Records a trigger at `step`, now, and returns what passed since the previous trigger
  /// (both empty the first time, or after Reset()).
  Elapsed UpdateLastTriggeredStep(int64_t step);

  /// The step of the last trigger, or std::nullopt if there was none since construction or
  /// Reset().
  std::optional<int64_t> last_triggered_step() const { return last_triggered_step_; }

  /// Forgets the last trigger, so the next ShouldTriggerForStep answers true.
  void Reset();

 private:
  // Time is kept in the clock's whole microseconds, so "0.1 s after 0.2 s" is exactly
  // 0.3 s and a FakeClock test triggers where its arithmetic says it should.
  std::optional<int64_t> every_micros_;
  std::optional<int64_t> every_steps_;
  Clock* clock_;
  std::optional<int64_t> last_triggered_micros_;  // On clock_, set with the step.
  std::optional<int64_t> last_triggered_step_;
};

}  // namespace mts

#endif  // MTS_SRC_03_HOOKED_HOOKS_SECOND_OR_STEP_TIMER_H_
