// time_limit_hook.h: an exercise of chapter 03. A hook that ends training when a budget of
// time is spent.
//
//   HookedSession      calls this hook after every run; ShouldStop() once it asks
//     Session          the hook adds nothing to the runs
//
// A job on a shared cluster often has a time slot: train for at most eight hours, then stop
// cleanly (so the hooks' End saves a last checkpoint) instead of being killed. This hook
// starts a stopwatch in Begin(), and after every run asks for a stop once `limit_secs` have
// passed on its Clock. Begin() is the right moment because MonitoredSession calls it once,
// before the first session is made; AfterCreateSession would be wrong, since a recovery
// calls it again and would quietly restart the budget.
//
// Time comes from an injected Clock (RealClock() when none is given), so a test can move
// time by hand with a FakeClock instead of sleeping. The hook looks at the clock only
// after a run: a hook cannot prevent a run, so training overruns the budget by at most one
// step.
//
// Lifecycle: construct; Begin (starts the stopwatch); AfterRun per step (may request the
// stop).
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
/// Requests a stop after the first run that ends `limit_secs` or more after Begin().
class TimeLimitHook : public SessionRunHook {
 public:
  /// A budget of `limit_secs` seconds (kept in whole microseconds) of `clock`, RealClock()
  /// if null. \throws ValueError unless limit_secs > 0 (given).
  explicit TimeLimitHook(double limit_secs, Clock* clock = nullptr);

  /// Starts the stopwatch: remembers the clock's NowMicros() (yours).
  void Begin() override;
  /// Requests a stop if at least the limit has passed since Begin() (yours).
  void AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) override;

  /// The clock's NowMicros() at Begin(), or std::nullopt before it.
  std::optional<int64_t> start_micros() const { return start_micros_; }

 private:
  int64_t limit_micros_;
  Clock* clock_;
  std::optional<int64_t> start_micros_;
};
// [mts:time-limit-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_03_HOOKED_EXERCISES_TIME_LIMIT_HOOK_TIME_LIMIT_HOOK_H_
