#include "src/02_chief_worker/worker_session_creator.h"

#include <utility>

namespace mts {

WorkerSessionCreator::WorkerSessionCreator(std::shared_ptr<Scaffold> scaffold, std::string master,
                                           double max_wait_secs, Clock* clock,
                                           double recovery_wait_secs)
    : scaffold_(scaffold != nullptr ? std::move(scaffold) : std::make_shared<Scaffold>()),
      master_(std::move(master)),
      max_wait_secs_(max_wait_secs),
      clock_(clock),
      recovery_wait_secs_(recovery_wait_secs) {}

// Built lazily because the scaffold's ops exist only once it is finalized.
SessionManager& WorkerSessionCreator::GetSessionManager() {
  if (session_manager_ == nullptr) {
    SessionManagerOptions options = SessionManagerOptionsFor(*scaffold_, clock_);
    options.recovery_wait_secs = recovery_wait_secs_;
    session_manager_ = std::make_unique<SessionManager>(std::move(options));
  }
  return *session_manager_;
}

std::unique_ptr<SessionInterface> WorkerSessionCreator::CreateSession() {
  scaffold_->Finalize();
  return GetSessionManager().WaitForSession(master_, max_wait_secs_);
}

}  // namespace mts
