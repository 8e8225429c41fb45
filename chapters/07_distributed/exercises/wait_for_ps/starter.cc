// Starter for the wait-for-ps exercise.
#include <cstdint>

#include "chapters/07_distributed/exercises/wait_for_ps/wait_for_ps.h"
#include "src/07_distributed/ps_client.h"
#include "src/platform/errors.h"

namespace mts {

// [mts:exercise-todo]
uint64_t WaitForPs(const std::string& address, double timeout_secs, double poll_secs, Clock* clock,
                   std::optional<uint64_t> restarted_from) {
  // TODO: the contract is in the header. Which errors mean "not yet", and which must reach
  // the caller? When is an answer not yet the server you were asked to wait for? Where
  // does the time between attempts come from in a test, and how do you keep the promise
  // that the error comes at the limit (not a poll late), after a last attempt at it?
  // This starter asks once.
  return PsClient("/job:ps/task:0", address, poll_secs).GetIncarnation();
}
// [mts:exercise-todo-end]

}  // namespace mts
