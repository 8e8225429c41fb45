// time_limit_hook.h: an exercise of chapter 03. A hook that ends training when a budget of
// time is spent.
//
//   HookedSession      calls this hook after every run; ShouldStop() once it asks
//     Session          the hook adds nothing to the runs
//
// A job on a shared cluster often has a time slot: train for at most eight hours, then stop
// cleanly (so the hooks' End saves a last checkpoint) instead of being killed. A hook cannot
// prevent a run, only ask for a stop after one; so to stay within the budget it must stop
// *before* the step that would overrun it, predicting how long the next step will take.
// This one predicts with the longest step seen so far (the cautious estimate: steps vary,
// and a killed job loses more than a step cut short).
//
// Three moments, three decisions:
//   - Begin() starts the budget: MonitoredSession calls it once, before the first session is
//     made, so a slow restore counts; AfterCreateSession would be wrong for the budget,
//     since a recovery calls it again and would quietly restart it.
//   - A step is the time from one AfterRun() to the next: the caller's own work between runs
//     is part of what the next step will cost. The first step after a session is created
//     (the first, or a new one after a recovery) is timed from AfterCreateSession(), so
//     neither the restore nor a recovery passes for a step.
//   - After each run the hook asks for a stop when the limit has passed, or when one more
//     step as long as the longest so far would end past it (ending exactly at the limit
//     still fits).
//
// Time comes from an injected Clock (RealClock() when none is given), so a test can move
// time by hand with a FakeClock instead of sleeping.
//
// Lifecycle: construct; Begin (starts the budget); AfterCreateSession per session made
// (starts timing a step); AfterRun per step (may request the stop).
//
// Thread safety: one thread calls a hook.
//
// Example:
//   auto limit = std::make_shared<TimeLimitHook>(/*limit_secs=*/8 * 3600);
//   HookedSession session(std::move(raw), {limit});
//
// TensorFlow: no built-in hook; StopAtStepHook is the step-count counterpart.
#ifndef MTS_CHAPTERS_03_HOOKED_EXERCISES_TIME_LIMIT_HOOK_TIME_LIMIT_HOOK_H_
#define MTS_CHAPTERS_03_HOOKED_EXERCISES_TIME_LIMIT_HOOK_TIME_LIMIT_HOOK_H_

#include <cstdint>
#include <optional>

#include "src/03_hooked/session_run_hook.h"
#include "src/platform/clock.h"

namespace mts {

// [mts:time-limit-api]
/// Requests a stop after the last run that, predicting with the longest step so far, fits
/// in `limit_secs` after Begin().
class TimeLimitHook : public SessionRunHook {
 public:
  /// A budget of `limit_secs` seconds (kept in whole microseconds) of `clock`, RealClock()
  /// if null. \throws ValueError unless limit_secs > 0 (given).
  explicit TimeLimitHook(double limit_secs, Clock* clock = nullptr);

  /// Starts the budget: remembers the clock's NowMicros() (yours).
  void Begin() override;
  /// Starts timing the next step, not the budget (yours).
  void AfterCreateSession(SessionInterface& session, Coordinator* coord) override;
  /// Times the step that just ended and requests a stop if the next one might not fit
  /// (yours).
  void AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) override;

  /// The clock's NowMicros() at Begin(), or std::nullopt before it.
  std::optional<int64_t> start_micros() const { return start_micros_; }
  /// The longest step timed so far, in microseconds; 0 before the first.
  int64_t longest_step_micros() const { return longest_step_micros_; }

 private:
  int64_t limit_micros_;
  Clock* clock_;
  std::optional<int64_t> start_micros_;
  int64_t step_start_micros_ = 0;  // When the step now running began.
  int64_t longest_step_micros_ = 0;
};
// [mts:time-limit-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_03_HOOKED_EXERCISES_TIME_LIMIT_HOOK_TIME_LIMIT_HOOK_H_
