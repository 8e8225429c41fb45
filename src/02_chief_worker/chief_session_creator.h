// chief_session_creator.h: makes the chief's session: restored from the latest checkpoint,
// or initialised when there is none.
//
//   RecoverableSession
//     CoordinatedSession
//       HookedSession
//         Chief / Worker   <-- this file: the chief's creator (worker_session_creator.h
//                              beside it); above, the layers' creators wrap it
//           Session        made and prepared by a SessionManager (session_manager.h)
//
// The chief is the one process that may write the model: it restores the newest checkpoint
// in checkpoint_dir (or the file checkpoint_filename_with_path), and only when there is
// nothing to restore runs the scaffold's init_op and init_fn. Every process, the chief
// included, then runs the local init op. Because the recoverable layer calls CreateSession
// again after a preemption, a recreated chief session resumes from the last checkpoint.
//
// Lifecycle:
//   1. Construct with a Scaffold (a default one if null) and where checkpoints live.
//   2. CreateSession(): finalizes the scaffold (and so the graph), then prepares a session.
//      Call it again for each recreation; the scaffold and the SessionManager are reused.
//
// Thread safety: call CreateSession from one thread at a time.
//
// Example:
//   ChiefSessionCreator creator(nullptr, "", "/tmp/run");
//   std::unique_ptr<SessionInterface> session = creator.CreateSession();
//
// TensorFlow: ChiefSessionCreator (tensorflow/python/training/monitored_session.py).
#ifndef MTS_SRC_02_CHIEF_WORKER_CHIEF_SESSION_CREATOR_H_
#define MTS_SRC_02_CHIEF_WORKER_CHIEF_SESSION_CREATOR_H_

#include <memory>
#include <string>

#include "src/02_chief_worker/scaffold.h"
#include "src/02_chief_worker/session_creator.h"
#include "src/02_chief_worker/session_manager.h"
#include "src/platform/clock.h"

namespace mts {

/// Makes the chief's sessions: restore or initialise (TensorFlow's ChiefSessionCreator).
class ChiefSessionCreator : public SessionCreator {
 public:
  /// A creator using `scaffold` (a new default Scaffold if null) on `master`, restoring from
  /// `checkpoint_dir` or `checkpoint_filename_with_path` (give at most one). `clock` (null:
  /// RealClock()) is the SessionManager's.
  explicit ChiefSessionCreator(std::shared_ptr<Scaffold> scaffold = nullptr,
                               std::string master = "", std::string checkpoint_dir = "",
                               std::string checkpoint_filename_with_path = "",
                               Clock* clock = nullptr);

  /// Finalizes the scaffold, then SessionManager::PrepareSession: restore, or init_op and
  /// init_fn; local init; ready check. Never waits for a checkpoint to appear.
  /// \throws RuntimeError as Scaffold::Finalize and SessionManager::PrepareSession throw
  ///   it (and their other exceptions likewise); no session is left open.
  std::unique_ptr<SessionInterface> CreateSession() override;

  /// The scaffold sessions are prepared with.
  const std::shared_ptr<Scaffold>& scaffold() const { return scaffold_; }

  /// Beyond TensorFlow: lets CreateSession initialise over a model the parameter servers
  /// hold for someone else (PrepareSessionOptions::reinitialize_live_model); false at first.
  void set_reinitialize_live_model(bool value) { reinitialize_live_model_ = value; }

 private:
  SessionManager& GetSessionManager();

  std::shared_ptr<Scaffold> scaffold_;
  std::string master_;
  std::string checkpoint_dir_;
  std::string checkpoint_filename_with_path_;
  Clock* clock_;
  bool reinitialize_live_model_ = false;
  std::unique_ptr<SessionManager> session_manager_;  // Made on first use.
};

}  // namespace mts

#endif  // MTS_SRC_02_CHIEF_WORKER_CHIEF_SESSION_CREATOR_H_
