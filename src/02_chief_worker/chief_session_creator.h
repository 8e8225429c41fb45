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
// CreateSession() finalizes the scaffold (and so the graph), then has the SessionManager
// restore checkpoint_dir's latest sound checkpoint (or checkpoint_filename_with_path), or
// run init_op and init_fn when there is none, and the local init op. Called again after a
// preemption, it resumes from the last checkpoint; the scaffold and the manager are reused.
//
// Thread safety: call CreateSession from one thread at a time.
//
// Example:
//   ChiefSessionCreatorOptions options;
//   options.checkpoint_dir = "/tmp/run";
//   ChiefSessionCreator creator(scaffold, options);
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

/// Where a ChiefSessionCreator makes its sessions and restores them from: TensorFlow's
/// keyword arguments of ChiefSessionCreator, with its defaults (`config` has no counterpart).
/// Named fields, because three strings in a row are too easily swapped.
struct ChiefSessionCreatorOptions {
  /// The target sessions are made on: "" in process, "grpc://host:port" (stage 07).
  std::string master;
  /// Restore the latest checkpoint in this directory (none there: initialise).
  std::string checkpoint_dir;
  /// Or restore exactly this checkpoint; give at most one of the two.
  std::string checkpoint_filename_with_path;
  /// The SessionManager's clock (its waits, the sessions' traced timings); null: RealClock().
  Clock* clock = nullptr;
  /// Initialise over a live model on the parameter servers that this chief did not write
  /// (PrepareSessionOptions::reinitialize_live_model); false: refuse, naming its step.
  bool reinitialize_live_model = false;
};

/// Makes the chief's sessions: restore or initialise (TensorFlow's ChiefSessionCreator).
class ChiefSessionCreator : public SessionCreator {
 public:
  /// A creator using `scaffold` (a new default Scaffold if null), making and restoring its
  /// sessions as `options` say.
  explicit ChiefSessionCreator(std::shared_ptr<Scaffold> scaffold = nullptr,
                               ChiefSessionCreatorOptions options = {});

  /// Finalizes the scaffold, then SessionManager::PrepareSession: restore, or init_op and
  /// init_fn; local init; ready check. Never waits for a checkpoint to appear.
  /// \throws RuntimeError as Scaffold::Finalize and SessionManager::PrepareSession throw
  ///   it (and their other exceptions likewise); no session is left open.
  std::unique_ptr<SessionInterface> CreateSession() override;

  /// The scaffold sessions are prepared with.
  const std::shared_ptr<Scaffold>& scaffold() const { return scaffold_; }

 private:
  SessionManager& GetSessionManager();

  std::shared_ptr<Scaffold> scaffold_;
  ChiefSessionCreatorOptions options_;
  std::unique_ptr<SessionManager> session_manager_;  // Made on first use.
};

}  // namespace mts

#endif  // MTS_SRC_02_CHIEF_WORKER_CHIEF_SESSION_CREATOR_H_
