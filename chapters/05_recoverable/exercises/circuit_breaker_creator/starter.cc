// Starter for the circuit breaker exercise.
#include "chapters/05_recoverable/exercises/circuit_breaker_creator/circuit_breaker_creator.h"
#include "src/platform/errors.h"

namespace mts {

CircuitBreakerCreator::CircuitBreakerCreator(std::shared_ptr<SessionCreator> creator,
                                             int max_failures, double window_secs, Clock* clock)
    : creator_(std::move(creator)),
      max_failures_(max_failures),
      window_secs_(window_secs),
      clock_(clock != nullptr ? clock : RealClock()) {}

// [mts:exercise-todo]
std::unique_ptr<SessionInterface> CircuitBreakerCreator::CreateSession() {
  // TODO: the contract is in the header. The decisions are yours: which failures of the
  // creator count towards opening (what would the recoverable layer above do with
  // "circuit open" after a failure that was not the cluster's fault?), and what the first
  // attempt after an open window is allowed to cost if the cluster is still down. Keep
  // the state in failures_, open_until_ and half_open_, on clock_ (never the real clock).
  return creator_->CreateSession();
}

bool CircuitBreakerCreator::open() const {
  // TODO: whether a CreateSession now would be refused.
  return false;
}
// [mts:exercise-todo-end]

}  // namespace mts
