// starter.cc: an exercise of chapter 03, to be completed. Write Begin() and AfterRun() so
// that time_limit_hook_test passes:
//
//   bazel test --define=exercises=starter //chapters/03_hooked/exercises/time_limit_hook:all
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
void TimeLimitHook::Begin() {}

void TimeLimitHook::AfterCreateSession(SessionInterface& session, Coordinator* coord) {}

void TimeLimitHook::AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) {}
// [mts:exercise-todo-end]

}  // namespace mts
