// The circuit breaker exercise of chapter 05: CircuitBreakerCreator::CreateSession() and
// open(), so that circuit_breaker_creator_test passes (the constructor is given). The parts
// to write lie between the `[mts:lab circuit_breaker_creator]` markers; the comments
// outside them say what to decide.
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
  // TODO(student): the contract is in the header. The decisions are yours: which failures
  // of the creator count towards opening (what would the recoverable layer above do with
  // "circuit open" after a failure that was not the cluster's fault?), and what the first
  // attempt after an open window is allowed to cost if the cluster is still down. Keep
  // the state in failures_, open_until_ and half_open_, on clock_ (never the real clock).
  // The session itself comes from creator_->CreateSession().
  // [mts:lab circuit_breaker_creator]
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
  // [mts:lab-end]
}

bool CircuitBreakerCreator::open() const {
  // TODO(student): whether a CreateSession now would be refused.
  // [mts:lab circuit_breaker_creator]
  return clock_->NowSeconds() < open_until_;
  // [mts:lab-end]
}
// [mts:exercise-todo-end]

}  // namespace mts
