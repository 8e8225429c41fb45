// Reference solution of the wait-for-ps exercise.
#include <chrono>
#include <thread>

#include "chapters/07_distributed/exercises/wait_for_ps/wait_for_ps.h"
#include "src/platform/errors.h"
#include "src/07_distributed/ps_client.h"

namespace mts {

uint64_t WaitForPs(const std::string& address, double timeout_secs, double poll_secs) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_secs);
  while (true) {
    try {
      // A new client per attempt: a fresh connection, no reconnect backoff carried over.
      return PsClient("/job:ps/task:0", address, poll_secs).GetIncarnation();
    } catch (const UnavailableError&) {
      if (Clock::now() >= deadline) break;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(poll_secs));
  }
  throw DeadlineExceededError("No parameter server answered at " + address + " within " +
                              std::to_string(timeout_secs) + " s.");
}

}  // namespace mts
