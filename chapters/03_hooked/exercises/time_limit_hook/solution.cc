// The time_limit_hook exercise of chapter 03: TimeLimitHook::Begin(), AfterCreateSession()
// and AfterRun(), so that time_limit_hook_test passes (the constructor is given). The parts
// to write lie between the `[mts:lab time_limit_hook]` markers; the comment outside them
// says what to decide.
#include <algorithm>
#include <cmath>

#include "chapters/03_hooked/exercises/time_limit_hook/time_limit_hook.h"
#include "src/platform/errors.h"

namespace mts {

TimeLimitHook::TimeLimitHook(double limit_secs, Clock* clock)
    : limit_micros_(std::llround(limit_secs * 1e6)),
      clock_(clock != nullptr ? clock : RealClock()) {
  if (!(limit_secs > 0)) throw ValueError("TimeLimitHook: limit_secs must be positive");
}

// [mts:exercise-todo]
// TODO(student): the header states what each moment means. Decide which clock reading each
// method keeps (NowMicros(), never the wall time: why?), what makes a step and what does
// not, and the exact comparison that asks for the stop through run_context. The hook needs
// nothing from the run, so BeforeRun keeps its default.
void TimeLimitHook::Begin() {
  // [mts:lab time_limit_hook]
  // The monotonic time: a wall clock set back by NTP would stretch the budget.
  start_micros_ = clock_->NowMicros();
  // Also the start of the first step, in case no creator reports a session (a HookedSession
  // made by hand): AfterCreateSession, when it comes, starts it again.
  step_start_micros_ = *start_micros_;
  longest_step_micros_ = 0;
  // [mts:lab-end]
}

void TimeLimitHook::AfterCreateSession(SessionInterface& session, Coordinator* coord) {
  // [mts:lab time_limit_hook]
  // The budget goes on; only the timing of a step starts again, so that neither a restore
  // nor a recovery is mistaken for a step (it would make every later prediction far too
  // long).
  step_start_micros_ = clock_->NowMicros();
  // [mts:lab-end]
}

void TimeLimitHook::AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) {
  // [mts:lab time_limit_hook]
  const int64_t now = clock_->NowMicros();
  // From the end of the last run: the caller's work between runs is part of a step.
  longest_step_micros_ = std::max(longest_step_micros_, now - step_start_micros_);
  step_start_micros_ = now;
  const int64_t used = now - *start_micros_;
  // A next step as long as the longest may end exactly at the limit, not past it.
  if (used >= limit_micros_ || used + longest_step_micros_ > limit_micros_) {
    run_context.RequestStop();
  }
  // [mts:lab-end]
}
// [mts:exercise-todo-end]

}  // namespace mts
