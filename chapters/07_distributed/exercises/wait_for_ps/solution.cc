// The wait-for-ps exercise of chapter 07: WaitForPs(), so that wait_for_ps_test passes.
// The part to write lies between the `[mts:lab wait_for_ps]` markers; the comment outside
// them says what to decide.
#include <algorithm>
#include <cstdint>

#include "chapters/07_distributed/exercises/wait_for_ps/wait_for_ps.h"
#include "src/07_distributed/ps_client.h"
#include "src/platform/errors.h"

namespace mts {

// [mts:exercise-todo]
uint64_t WaitForPs(const std::string& address, double timeout_secs, double poll_secs, Clock* clock,
                   std::optional<uint64_t> restarted_from) {
  // TODO(student): the contract is in the header. Asking once is
  // PsClient("/job:ps/task:0", address, poll_secs).GetIncarnation(). Which errors mean "not
  // yet", and which must reach the caller? When is an answer not yet the server you were
  // asked to wait for? Where does the time between attempts come from in a test, and how
  // do you keep the promise that the error comes at the limit (not a poll late), after a
  // last attempt at it?
  // [mts:lab wait_for_ps]
  if (clock == nullptr) clock = RealClock();
  const int64_t poll_micros = static_cast<int64_t>(poll_secs * 1e6);
  const int64_t deadline = clock->NowMicros() + static_cast<int64_t>(timeout_secs * 1e6);
  bool old_one_answered = false;
  while (true) {
    try {
      // A new client per attempt: a fresh connection, no reconnect backoff carried over.
      const uint64_t incarnation = PsClient("/job:ps/task:0", address, poll_secs).GetIncarnation();
      // The process being replaced still answers: up, but not the one asked for.
      if (incarnation != restarted_from) return incarnation;
      old_one_answered = true;
    } catch (const UnavailableError&) {
      old_one_answered = false;  // Nobody at all now: the old process is gone.
    }
    const int64_t now = clock->NowMicros();
    if (now >= deadline) break;
    // Never past the limit: the last wait is cut short, and one more attempt is made at it.
    clock->SleepForMicros(std::min(poll_micros, deadline - now));  // On the test's clock.
  }
  const std::string within = std::to_string(timeout_secs) + " s.";
  if (old_one_answered) {
    throw DeadlineExceededError("The parameter server at " + address +
                                " still answers with incarnation " +
                                std::to_string(*restarted_from) +
                                ", the one it should have restarted from, after " + within);
  }
  throw DeadlineExceededError("No parameter server answered at " + address + " within " + within);
  // [mts:lab-end]
}
// [mts:exercise-todo-end]

}  // namespace mts
