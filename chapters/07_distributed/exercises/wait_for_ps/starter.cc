// Starter for the wait-for-ps exercise.
#include <cstdint>

#include "chapters/07_distributed/exercises/wait_for_ps/wait_for_ps.h"
#include "src/07_distributed/ps_client.h"
#include "src/platform/errors.h"

namespace mts {

// [mts:exercise-todo]
uint64_t WaitForPs(const std::string& address, double timeout_secs, double poll_secs,
                   Clock* clock) {
  // TODO: keep asking until the ps answers or timeout_secs have passed on `clock`, then
  // raise DeadlineExceededError naming the address. Which errors mean "not yet", and which
  // must reach the caller? Where does the time between attempts come from in a test?
  // This starter asks once.
  return PsClient("/job:ps/task:0", address, poll_secs).GetIncarnation();
}
// [mts:exercise-todo-end]

}  // namespace mts
