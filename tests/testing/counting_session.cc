#include "tests/testing/counting_session.h"

#include <utility>

namespace mts {

CountingSession::CountingSession(std::unique_ptr<SessionInterface> inner)
    : inner_(std::move(inner)) {}

std::vector<Tensor> CountingSession::Run(const std::vector<Output>& fetches, const FeedDict& feeds,
                                         const std::vector<Operation*>& targets,
                                         const RunOptions& options, RunMetadata* run_metadata) {
  ++runs_;
  return inner_->Run(fetches, feeds, targets, options, run_metadata);
}

Graph* CountingSession::graph() const { return inner_->graph(); }

void CountingSession::Close() { inner_->Close(); }

}  // namespace mts
