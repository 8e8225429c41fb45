#include "src/02_chief_worker/chief_session_creator.h"

#include <utility>

namespace mts {

ChiefSessionCreator::ChiefSessionCreator(std::shared_ptr<Scaffold> scaffold, std::string master,
                                         std::string checkpoint_dir,
                                         std::string checkpoint_filename_with_path, Clock* clock)
    : scaffold_(scaffold != nullptr ? std::move(scaffold) : std::make_shared<Scaffold>()),
      master_(std::move(master)),
      checkpoint_dir_(std::move(checkpoint_dir)),
      checkpoint_filename_with_path_(std::move(checkpoint_filename_with_path)),
      clock_(clock) {}

// Built lazily because the scaffold's ops exist only once it is finalized.
SessionManager& ChiefSessionCreator::GetSessionManager() {
  if (session_manager_ == nullptr) {
    session_manager_ =
        std::make_unique<SessionManager>(SessionManagerOptionsFor(*scaffold_, clock_));
  }
  return *session_manager_;
}

std::unique_ptr<SessionInterface> ChiefSessionCreator::CreateSession() {
  scaffold_->Finalize();
  // The chief never waits for a checkpoint (wait_for_checkpoint keeps its default, false):
  // with none to restore, it initialises.
  PrepareSessionOptions options;
  options.saver = scaffold_->saver().get();
  options.checkpoint_dir = checkpoint_dir_;
  options.checkpoint_filename_with_path = checkpoint_filename_with_path_;
  options.init_op = scaffold_->init_op();
  options.init_feed_dict = scaffold_->init_feed_dict();
  options.init_fn = scaffold_->BoundInitFn();
  options.reinitialize_live_model = reinitialize_live_model_;
  return GetSessionManager().PrepareSession(master_, options);
}

}  // namespace mts
