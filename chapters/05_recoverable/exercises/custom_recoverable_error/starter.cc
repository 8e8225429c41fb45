// Starter for the custom recoverable error exercise.
#include "chapters/05_recoverable/exercises/custom_recoverable_error/custom_recoverable_error.h"

namespace mts {

ErrorTranslatingSession::ErrorTranslatingSession(std::unique_ptr<SessionInterface> inner,
                                                 ErrorCode code,
                                                 std::shared_ptr<TranslationBudget> budget)
    : WrappedSession(std::move(inner)), code_(code), budget_(std::move(budget)) {}

ErrorTranslatingCreator::ErrorTranslatingCreator(std::shared_ptr<SessionCreator> creator,
                                                 ErrorCode code, int max_in_a_row)
    : creator_(std::move(creator)),
      code_(code),
      budget_(std::make_shared<TranslationBudget>(TranslationBudget{max_in_a_row, 0})) {}

CustomRecoverableSession::CustomRecoverableSession(std::shared_ptr<SessionCreator> creator,
                                                   ErrorCode also_recover, RecoveryOptions options,
                                                   int max_in_a_row)
    : RecoverableSession(
          std::make_shared<ErrorTranslatingCreator>(creator, also_recover, max_in_a_row), options) {
}

// [mts:exercise-todo]
// TODO: the contract is in the header. Translate errors of code_ into AbortedError in
// every path by which an error reaches the recoverable layer (which ones are there?), so
// that it recovers from them as from a preemption. Decide how the budget is spent and
// given back: which events count as "in a row", which one proves that the failures were
// transient, and why Close is treated differently. Rethrow what you do not translate as
// it is, not as a copy.
std::vector<Tensor> ErrorTranslatingSession::Run(const std::vector<Output>& fetches,
                                                 const FeedDict& feeds,
                                                 const std::vector<Operation*>& targets,
                                                 const RunOptions& options,
                                                 RunMetadata* run_metadata) {
  return WrappedSession::Run(fetches, feeds, targets, options, run_metadata);
}

void ErrorTranslatingSession::Close() { WrappedSession::Close(); }

bool ErrorTranslatingSession::InnerShouldStop() { return WrappedSession::InnerShouldStop(); }

std::unique_ptr<SessionInterface> ErrorTranslatingCreator::CreateSession() {
  return creator_->CreateSession();
}
// [mts:exercise-todo-end]

}  // namespace mts
