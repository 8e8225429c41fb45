// worker_session_creator.h: makes a non-chief worker's session: it waits until the chief has
// made the model ready.
//
//   RecoverableSession
//     CoordinatedSession
//       HookedSession
//         Chief / Worker   <-- this file: the worker's creator (chief_session_creator.h
//                              beside it); above, the layers' creators wrap it
//           Session        polled by a SessionManager (session_manager.h)
//
// CreateSession() finalizes the scaffold, then makes a session every recovery_wait_secs,
// logging which variables it waits for, until the model is ready; it runs only the local
// init op, never init_op or init_fn. Call it again for each recreation.
//
// Thread safety: call CreateSession from one thread at a time.
//
// Example:
//   WorkerSessionCreator creator(scaffold, "grpc://chief:2222");
//   std::unique_ptr<SessionInterface> session = creator.CreateSession();  // may wait
//
// TensorFlow: WorkerSessionCreator (tensorflow/python/training/monitored_session.py).
#ifndef MTS_SRC_02_CHIEF_WORKER_WORKER_SESSION_CREATOR_H_
#define MTS_SRC_02_CHIEF_WORKER_WORKER_SESSION_CREATOR_H_

#include <memory>
#include <string>

#include "src/02_chief_worker/scaffold.h"
#include "src/02_chief_worker/session_creator.h"
#include "src/02_chief_worker/session_manager.h"
#include "src/platform/clock.h"

namespace mts {

/// Makes a worker's sessions: wait until ready (TensorFlow's WorkerSessionCreator).
class WorkerSessionCreator : public SessionCreator {
 public:
  /// A creator using `scaffold` (a new default Scaffold if null) on `master`, waiting at
  /// most `max_wait_secs` per session and checking again every `recovery_wait_secs`
  /// (TensorFlow's SessionManager default, 30, unless given); `clock` (null: RealClock())
  /// times the waits.
  explicit WorkerSessionCreator(std::shared_ptr<Scaffold> scaffold = nullptr,
                                std::string master = "", double max_wait_secs = 1800,
                                Clock* clock = nullptr, double recovery_wait_secs = 30);

  /// Finalizes the scaffold, then SessionManager::WaitForSession.
  /// \throws DeadlineExceededError `Session was not ready after waiting N secs.` when the
  ///   model is still not ready after max_wait_secs.
  /// \throws RuntimeError as Scaffold::Finalize throws it.
  std::unique_ptr<SessionInterface> CreateSession() override;

  /// The scaffold sessions are checked with.
  const std::shared_ptr<Scaffold>& scaffold() const { return scaffold_; }

 private:
  SessionManager& GetSessionManager();

  std::shared_ptr<Scaffold> scaffold_;
  std::string master_;
  double max_wait_secs_;
  Clock* clock_;
  double recovery_wait_secs_;
  std::unique_ptr<SessionManager> session_manager_;  // Made on first use.
};

}  // namespace mts

#endif  // MTS_SRC_02_CHIEF_WORKER_WORKER_SESSION_CREATOR_H_
