#include "src/03_hooked/wrapped_session.h"

#include "src/platform/errors.h"
#include "src/platform/logging.h"

namespace mts {

WrappedSession::WrappedSession(std::unique_ptr<SessionInterface> inner)
    : inner_(std::move(inner)) {
  if (inner_ == nullptr) throw ValueError("A WrappedSession needs a session to wrap.");
}

WrappedSession::~WrappedSession() {
  try {
    Close();
  } catch (const std::exception& e) {
    // A destructor must not throw; the error has nowhere else to go than the log.
    MTS_LOG(ERROR) << "Error while closing a session in its destructor: " << e.what();
  }
}

std::vector<Tensor> WrappedSession::Run(const std::vector<Output>& fetches,
                                        const FeedDict& feeds,
                                        const std::vector<Operation*>& targets,
                                        const RunOptions& options,
                                        RunMetadata* run_metadata) {
  if (inner_ == nullptr) {
    throw RuntimeError("Attempted to use a closed Session. Make a new session to run again.");
  }
  return inner_->Run(fetches, feeds, targets, options, run_metadata);
}

Graph* WrappedSession::graph() const { return inner_ ? inner_->graph() : nullptr; }

// [mts:should-stop]
bool WrappedSession::ShouldStop() {
  if (CheckStop()) return true;
  if (inner_ == nullptr) return true;  // Closed.
  return InnerShouldStop();
}

bool WrappedSession::InnerShouldStop() {
  auto* wrapped = dynamic_cast<WrappedSession*>(inner_.get());
  return wrapped != nullptr && wrapped->ShouldStop();
}
// [mts:should-stop-end]

void WrappedSession::ResetInner(std::unique_ptr<SessionInterface> inner) {
  if (inner == nullptr) throw ValueError("A WrappedSession needs a session to wrap.");
  inner_ = std::move(inner);
}

void WrappedSession::Close() {
  if (inner_ == nullptr) return;
  // Forget the inner session first: whatever Close raises, this one counts as closed.
  std::unique_ptr<SessionInterface> inner = std::move(inner_);
  try {
    inner->Close();
  } catch (const OpError& e) {
    if (!IsPreemptionError(e.code())) throw;
    MTS_LOG(WARNING) << "An error occurred while closing the session (ignored): " << e.what();
  }
}

}  // namespace mts
