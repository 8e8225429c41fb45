#include "src/02_chief_worker/chief_session_creator.h"

#include <utility>

namespace mts {

ChiefSessionCreator::ChiefSessionCreator(std::shared_ptr<Scaffold> scaffold,
                                         ChiefSessionCreatorOptions options)
    : scaffold_(scaffold != nullptr ? std::move(scaffold) : std::make_shared<Scaffold>()),
      options_(std::move(options)) {}

// Built lazily because the scaffold's ops exist only once it is finalized.
SessionManager& ChiefSessionCreator::GetSessionManager() {
  if (session_manager_ == nullptr) {
    session_manager_ =
        std::make_unique<SessionManager>(SessionManagerOptionsFor(*scaffold_, options_.clock));
  }
  return *session_manager_;
}

std::unique_ptr<SessionInterface> ChiefSessionCreator::CreateSession() {
  scaffold_->Finalize();
  // The chief never waits for a checkpoint (wait_for_checkpoint keeps its default, false):
  // with none to restore, it initialises.
  PrepareSessionOptions prepare;
  prepare.saver = scaffold_->saver().get();
  prepare.checkpoint_dir = options_.checkpoint_dir;
  prepare.checkpoint_filename_with_path = options_.checkpoint_filename_with_path;
  prepare.init_op = scaffold_->init_op();
  prepare.init_feed_dict = scaffold_->init_feed_dict();
  prepare.init_fn = scaffold_->BoundInitFn();
  prepare.reinitialize_live_model = options_.reinitialize_live_model;
  return GetSessionManager().PrepareSession(options_.master, prepare);
}

}  // namespace mts
