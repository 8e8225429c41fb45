// recoverable_session.h: rebuilds the whole stack below when a preemption error strikes,
// and runs the step again.
//
//   RecoverableSession     <-- this file: wraps a session *creator*, not a session
//     CoordinatedSession   everything below is thrown away and made again on recovery
//       HookedSession
//         Chief / Worker   the new chief session restores the latest checkpoint
//           Session
//
// Lifecycle:
//   1. Construction creates the first stack, retrying on preemption errors (AbortedError,
//      UnavailableError: IsPreemptionError), without limit unless RecoveryOptions bound it.
//   2. Run: on a preemption error, log, close the stack (ignoring its preemption errors),
//      create a new one, run again, hooks included; other errors propagate.
//   3. ShouldStop asks the stack below once: a preemption error it raises is recovered the
//      same way and the answer is "don't stop"; any other error means "stop", and is raised
//      again by Close.
//   4. Close: closes the current stack; preemption errors are swallowed. Run after Close
//      raises RuntimeError.
//
// Thread safety: one thread runs and closes it, as for every layer.
//
// TensorFlow: _RecoverableSession (tensorflow/python/training/monitored_session.py).
#ifndef MTS_SRC_05_RECOVERABLE_RECOVERABLE_SESSION_H_
#define MTS_SRC_05_RECOVERABLE_RECOVERABLE_SESSION_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "src/02_chief_worker/session_creator.h"
#include "src/03_hooked/wrapped_session.h"
#include "src/platform/clock.h"

namespace mts {

/// How a RecoverableSession retries creating its stack.
struct RecoveryOptions {
  /// Give up after this many consecutive failed creations (nullopt: never, as TensorFlow).
  std::optional<int> max_creation_attempts;
  /// Wait this long before the second attempt, doubling each time (0: retry at once).
  double initial_backoff_secs = 0;
  /// Never wait longer than this between attempts.
  double max_backoff_secs = 60;
  /// Where waits happen; null: RealClock().
  Clock* clock = nullptr;
};

/// A session that survives preemption by re-creating everything below it.
class RecoverableSession : public WrappedSession {
 public:
  // [mts:lab-contract-recoverable]
  /// Creates the first stack with `creator`, retrying on preemption errors.
  /// \throws OpError as a creation throws it, except a preemption error, which is retried;
  ///   the last preemption error once RecoveryOptions::max_creation_attempts are used up
  ///   (its class and op kept, its message followed by how many attempts were made and
  ///   what to do).
  ///   Other exceptions of the creator propagate at once.
  explicit RecoverableSession(std::shared_ptr<SessionCreator> creator,
                              RecoveryOptions options = {});

  /// \cond
  using WrappedSession::Run;
  /// \endcond

  /// Runs on the current stack; on a preemption error closes it, creates a new one and
  /// runs the whole call again (so hooks' BeforeRun/AfterRun and the train op run again).
  /// \throws RuntimeError "Attempted to use a closed Session." after Close().
  /// \throws OpError as the run throws it, unless it is a preemption error (recovered); as
  ///   a re-creation throws it (see the constructor).
  std::vector<Tensor> Run(const std::vector<Output>& fetches, const FeedDict& feeds = {},
                          const std::vector<Operation*>& targets = {},
                          const RunOptions& options = {},
                          RunMetadata* run_metadata = nullptr) override;

  /// Calls `step_fn` with the stack below (the session whose Run goes through the hooks
  /// but not through recovery). A preemption error anywhere inside it, from a hooked run
  /// or from a raw run on the session the caller looked up, closes the stack, creates a
  /// new one and calls `step_fn` again from the start: its side effects repeat, as a
  /// retried Run repeats the hooks. `step_fn` must look up the raw session it uses on each
  /// call (MonitoredSession asks its creator), never keep one from an earlier call: after a
  /// recovery the old one is closed. TensorFlow hands a retried step function the old raw
  /// session; this is the fix.
  /// \throws RuntimeError "Attempted to use a closed Session." after Close().
  /// \throws OpError as `step_fn` throws it, unless it is a preemption error (recovered).
  void RunStepFn(const std::function<void(SessionInterface& below)>& step_fn);
  // [mts:lab-contract-recoverable-end]

  /// Closes the current stack. Afterwards Run raises and ShouldStop is true.
  void Close() override;

  /// How many times the stack was re-created after a preemption error (0 at first).
  int64_t num_recoveries() const { return num_recoveries_; }

 protected:
  /// Asks the stack below once: a preemption error there is recovered (answer: don't
  /// stop); any other error means stop, and stays recorded for Close to raise.
  bool InnerShouldStop() override;

 private:
  // Creates a stack, retrying preemption errors as RecoveryOptions says.
  static std::unique_ptr<SessionInterface> CreateWithRetries(SessionCreator& creator,
                                                             const RecoveryOptions& options);
  // Closes the broken stack and installs a new one.
  void Recover(const std::exception& cause);

  std::shared_ptr<SessionCreator> creator_;
  RecoveryOptions options_;
  bool closed_ = false;
  int64_t num_recoveries_ = 0;
};

}  // namespace mts

#endif  // MTS_SRC_05_RECOVERABLE_RECOVERABLE_SESSION_H_
