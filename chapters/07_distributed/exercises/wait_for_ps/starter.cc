// Starter for the wait-for-ps exercise.
#include <chrono>
#include <thread>

#include "chapters/07_distributed/exercises/wait_for_ps/wait_for_ps.h"
#include "src/platform/errors.h"
#include "src/07_distributed/ps_client.h"

namespace mts {

// [mts:exercise-todo]
uint64_t WaitForPs(const std::string& address, double timeout_secs, double poll_secs) {
  // TODO: retry while GetIncarnation raises UnavailableError, sleeping poll_secs between
  // attempts; after timeout_secs raise DeadlineExceededError naming the address. This
  // starter asks once.
  return PsClient("/job:ps/task:0", address, poll_secs).GetIncarnation();
}
// [mts:exercise-todo-end]

}  // namespace mts
