// circuit_breaker_creator.h: chapter 05's exercise: stop hammering a cluster that keeps
// failing to give us a session.
//
//   RecoverableSession       retries creation on preemption errors (with backoff, if asked)
//     CircuitBreakerCreator  <-- this decorator: after N failures in a window, refuse at once
//       CoordinatedSessionCreator, ChiefSessionCreator, ...
//
// TensorFlow retries a failed creation at once and forever. When a parameter server is down
// for minutes, every retry is a full attempt (connect, restore a checkpoint, start threads)
// that fails again. A circuit breaker counts recent failures; once `max_failures` of them
// fall within `window_secs`, the circuit "opens": CreateSession fails at once, without
// touching the creator below, with UnavailableError("circuit open"), for `window_secs`.
//
// Two decisions make it a breaker rather than a counter. Which failures say "the cluster
// is down"? Only the ones the recoverable layer would retry (preemption errors): an
// InvalidArgumentError from a broken model must reach the caller as it is, and counting it
// would turn the next call into "circuit open", a preemption error, which the recoverable
// layer retries forever. And what happens when the open window ends? The circuit is
// "half-open": one attempt goes through as a probe; if it succeeds the circuit closes and
// past failures are forgotten, if it fails with a preemption error the circuit opens again
// at once, without waiting for `max_failures` new failures.
//
// The error it raises is a preemption error on purpose: the recoverable layer keeps
// retrying, and with a backoff on the same Clock its waits carry it past the open window.
#ifndef MTS_CHAPTERS_05_RECOVERABLE_EXERCISES_CIRCUIT_BREAKER_CREATOR_CIRCUIT_BREAKER_CREATOR_H_
#define MTS_CHAPTERS_05_RECOVERABLE_EXERCISES_CIRCUIT_BREAKER_CREATOR_CIRCUIT_BREAKER_CREATOR_H_

#include <deque>
#include <memory>

#include "src/02_chief_worker/session_creator.h"
#include "src/platform/clock.h"

namespace mts {

// [mts:circuit-breaker-api]
/// A creator that refuses to try for a while after too many recent failures.
class CircuitBreakerCreator : public SessionCreator {
 public:
  /// Wraps `creator`. The circuit opens when `max_failures` creations failed within the
  /// last `window_secs` seconds of `clock` (RealClock() if null), and stays open for
  /// `window_secs`. \pre max_failures >= 1, window_secs > 0.
  CircuitBreakerCreator(std::shared_ptr<SessionCreator> creator, int max_failures,
                        double window_secs, Clock* clock = nullptr);

  /// While open: throws UnavailableError("circuit open") without calling the creator.
  /// Otherwise the creator's session; a success closes the circuit and forgets past
  /// failures.
  /// \throws whatever the creator throws. A preemption error is recorded first: it may open
  ///   the circuit for the next call (at once, if this call was the probe after an open
  ///   window). Any other error is neither recorded nor forgets anything.
  std::unique_ptr<SessionInterface> CreateSession() override;

  /// Whether a CreateSession now would be refused.
  bool open() const;

 private:
  std::shared_ptr<SessionCreator> creator_;
  int max_failures_;
  double window_secs_;
  Clock* clock_;
  std::deque<double> failures_;  // Times of recent failures, oldest first.
  double open_until_ = -1;       // The circuit is open while the clock is before this.
  bool half_open_ = false;       // It was open: the next attempt is a probe.
};
// [mts:circuit-breaker-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_05_RECOVERABLE_EXERCISES_CIRCUIT_BREAKER_CREATOR_CIRCUIT_BREAKER_CREATOR_H_
