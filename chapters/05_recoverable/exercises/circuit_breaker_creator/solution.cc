// Reference solution for the circuit breaker exercise.
#include "chapters/05_recoverable/exercises/circuit_breaker_creator/circuit_breaker_creator.h"
#include "src/platform/errors.h"

namespace mts {

CircuitBreakerCreator::CircuitBreakerCreator(std::shared_ptr<SessionCreator> creator,
                                             int max_failures, double window_secs, Clock* clock)
    : creator_(std::move(creator)),
      max_failures_(max_failures),
      window_secs_(window_secs),
      clock_(clock != nullptr ? clock : RealClock()) {}

std::unique_ptr<SessionInterface> CircuitBreakerCreator::CreateSession() {
  if (open()) throw UnavailableError("circuit open");
  try {
    std::unique_ptr<SessionInterface> session = creator_->CreateSession();
    failures_.clear();
    half_open_ = false;
    return session;
  } catch (const OpError& e) {
    // Only what the recoverable layer retries says the cluster is down. Anything else is
    // the caller's to see as it is; counting it would make the next call "circuit open",
    // a preemption error, and the recoverable layer would retry a broken model forever.
    if (!IsPreemptionError(e.code())) throw;
    const double now = clock_->NowSeconds();
    failures_.push_back(now);
    while (!failures_.empty() && failures_.front() <= now - window_secs_) failures_.pop_front();
    // The probe after an open window failed: the cluster is still down, open again now.
    if (half_open_ || static_cast<int>(failures_.size()) >= max_failures_) {
      open_until_ = now + window_secs_;
      half_open_ = true;  // When it closes, the first attempt is a probe.
      failures_.clear();
    }
    throw;
  }
}

bool CircuitBreakerCreator::open() const { return clock_->NowSeconds() < open_until_; }

}  // namespace mts
