// Starter for the circuit breaker exercise.
#include "chapters/05_recoverable/exercises/circuit_breaker_creator/circuit_breaker_creator.h"

#include "src/platform/errors.h"

namespace mts {

CircuitBreakerCreator::CircuitBreakerCreator(std::shared_ptr<SessionCreator> creator,
                                             int max_failures, double window_secs,
                                             Clock* clock)
    : creator_(std::move(creator)),
      max_failures_(max_failures),
      window_secs_(window_secs),
      clock_(clock != nullptr ? clock : RealClock()) {}

// [mts:exercise-todo]
std::unique_ptr<SessionInterface> CircuitBreakerCreator::CreateSession() {
  // TODO: refuse while open (UnavailableError("circuit open")); otherwise try the creator.
  // On failure: note the time, forget failures older than the window, and open the circuit
  // for window_secs_ when max_failures_ remain (forgetting them); rethrow. On success:
  // forget all failures.
  return creator_->CreateSession();
}

bool CircuitBreakerCreator::open() const {
  // TODO: compare the clock with open_until_.
  return false;
}
// [mts:exercise-todo-end]

}  // namespace mts
