// coordinated_session.h: a session whose input threads start with it, stop with it, and
// whose errors reach the training loop.
//
//   RecoverableSession
//     CoordinatedSession   <-- this file: owns the Coordinator of the session's threads
//       HookedSession      the layer it wraps
//         Chief / Worker
//           Session
//
// ShouldStop() also asks the coordinator, and first rethrows an error a thread recorded.
// Run forwards; when it fails with anything but a preemption error while a thread has
// recorded one, the thread's error is raised instead, as the root cause. Close() requests
// a stop, joins the threads within the grace period (stragglers are logged), closes the
// sessions below whatever happened, and raises a thread's recorded error. The training
// thread's own errors are not reported to the coordinator.
//
// Thread safety: one thread runs and closes it; the threads it coordinates only talk to
// the Coordinator.
//
// TensorFlow: _CoordinatedSession and _CoordinatedSessionCreator
// (tensorflow/python/training/monitored_session.py).
#ifndef MTS_SRC_04_COORDINATED_COORDINATED_SESSION_H_
#define MTS_SRC_04_COORDINATED_COORDINATED_SESSION_H_

#include <memory>
#include <vector>

#include "src/02_chief_worker/session_creator.h"
#include "src/03_hooked/session_run_hook.h"
#include "src/03_hooked/wrapped_session.h"
#include "src/04_coordinated/coordinator.h"

namespace mts {

/// A session that shares a Coordinator with the threads feeding it.
class CoordinatedSession : public WrappedSession {
 public:
  /// Wraps `session` (normally a HookedSession); `coord` coordinates its threads.
  CoordinatedSession(std::unique_ptr<SessionInterface> session,
                     std::shared_ptr<Coordinator> coord, double stop_grace_period_secs = 120);
  /// Closes if still open; never throws.
  ~CoordinatedSession() override;

  /// \cond
  using WrappedSession::Run;
  /// \endcond

  /// Forwards the run. \throws the error of the run, or, when that is not a preemption
  ///   error and a thread recorded a preemption error, the thread's error.
  std::vector<Tensor> Run(const std::vector<Output>& fetches, const FeedDict& feeds = {},
                          const std::vector<Operation*>& targets = {},
                          const RunOptions& options = {},
                          RunMetadata* run_metadata = nullptr) override;

  /// Requests a stop, joins the threads within the grace period, then closes the sessions
  /// below. \throws the error a thread recorded, after everything is closed.
  void Close() override;

  /// The coordinator of this session's threads.
  Coordinator& coord() const { return *coord_; }

 protected:
  /// Rethrows an error a thread recorded; otherwise true once a stop was requested.
  bool CheckStop() override;

 private:
  std::shared_ptr<Coordinator> coord_;
  double stop_grace_period_secs_;
  bool closed_ = false;
};

/// Makes the stack from the coordinated layer down: a session from `creator`, its queue
/// runners started under a new Coordinator, the hooks told (AfterCreateSession), all
/// wrapped as CoordinatedSession(HookedSession(raw session)).
class CoordinatedSessionCreator : public SessionCreator {
 public:
  /// Creates sessions with `creator` and wraps them with `hooks`.
  CoordinatedSessionCreator(std::shared_ptr<SessionCreator> creator,
                            std::vector<std::shared_ptr<SessionRunHook>> hooks,
                            double stop_grace_period_secs = 120, Clock* clock = nullptr);

  /// Creates the raw session, starts the graph's queue runners, calls every hook's
  /// AfterCreateSession in order, and returns the wrapped stack, typed as its top layer so
  /// that a caller holding a CoordinatedSession needs no cast. If starting the runners or
  /// a hook fails, the threads are stopped and the session is closed before the error
  /// propagates (TensorFlow leaves them running).
  /// \throws whatever the inner creator, StartQueueRunners or a hook throws.
  std::unique_ptr<CoordinatedSession> CreateCoordinatedSession();

  /// SessionCreator: CreateCoordinatedSession(), for the layer above (RecoverableSession),
  /// which only needs a session.
  std::unique_ptr<SessionInterface> CreateSession() override;

  /// The raw session of the last stack created (owned by that stack), or null.
  SessionInterface* raw_session() const { return raw_session_; }
  /// The coordinator of the last stack created, or null.
  std::shared_ptr<Coordinator> coord() const { return coord_; }

 private:
  std::shared_ptr<SessionCreator> creator_;
  std::vector<std::shared_ptr<SessionRunHook>> hooks_;
  double stop_grace_period_secs_;
  Clock* clock_;
  SessionInterface* raw_session_ = nullptr;
  std::shared_ptr<Coordinator> coord_;
};

}  // namespace mts

#endif  // MTS_SRC_04_COORDINATED_COORDINATED_SESSION_H_
