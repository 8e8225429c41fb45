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
  return GetSessionManager().PrepareSession(master_, scaffold_->init_op(), scaffold_->saver().get(),
                                            checkpoint_dir_, checkpoint_filename_with_path_,
                                            /*wait_for_checkpoint=*/false, /*max_wait_secs=*/7200,
                                            scaffold_->init_feed_dict(), scaffold_->BoundInitFn());
}

}  // namespace mts
