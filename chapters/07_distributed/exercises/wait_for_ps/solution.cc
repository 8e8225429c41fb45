// Reference solution of the wait-for-ps exercise.
#include <cstdint>

#include "chapters/07_distributed/exercises/wait_for_ps/wait_for_ps.h"
#include "src/07_distributed/ps_client.h"
#include "src/platform/errors.h"

namespace mts {

uint64_t WaitForPs(const std::string& address, double timeout_secs, double poll_secs,
                   Clock* clock) {
  if (clock == nullptr) clock = RealClock();
  const int64_t poll_micros = static_cast<int64_t>(poll_secs * 1e6);
  const int64_t deadline = clock->NowMicros() + static_cast<int64_t>(timeout_secs * 1e6);
  while (true) {
    try {
      // A new client per attempt: a fresh connection, no reconnect backoff carried over.
      return PsClient("/job:ps/task:0", address, poll_secs).GetIncarnation();
    } catch (const UnavailableError&) {
      if (clock->NowMicros() >= deadline) break;
    }
    clock->SleepForMicros(poll_micros);  // On the seam: a test's fake clock moves it.
  }
  throw DeadlineExceededError("No parameter server answered at " + address + " within " +
                              std::to_string(timeout_secs) + " s.");
}

}  // namespace mts
