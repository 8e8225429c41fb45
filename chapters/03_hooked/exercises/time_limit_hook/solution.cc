// solution.cc: the reference solution to the time_limit_hook exercise of chapter 03. The
// student copy (tools/export_student_copy.sh) leaves this file out.
#include "chapters/03_hooked/exercises/time_limit_hook/time_limit_hook.h"

#include <cmath>

#include "src/platform/errors.h"

namespace mts {

TimeLimitHook::TimeLimitHook(double limit_secs, Clock* clock)
    : limit_micros_(std::llround(limit_secs * 1e6)),
      clock_(clock != nullptr ? clock : RealClock()) {
  if (!(limit_secs > 0)) throw ValueError("TimeLimitHook: limit_secs must be positive");
}

// The monotonic time: a wall clock set back by NTP would stretch the budget.
void TimeLimitHook::Begin() { start_micros_ = clock_->NowMicros(); }

void TimeLimitHook::AfterRun(SessionRunContext& run_context,
                             const SessionRunValues& run_values) {
  if (clock_->NowMicros() - *start_micros_ >= limit_micros_) run_context.RequestStop();
}

}  // namespace mts
