// Starter for the custom recoverable error exercise.
#include "chapters/05_recoverable/exercises/custom_recoverable_error/custom_recoverable_error.h"

namespace mts {

ErrorTranslatingSession::ErrorTranslatingSession(std::unique_ptr<SessionInterface> inner,
                                                 ErrorCode code)
    : WrappedSession(std::move(inner)), code_(code) {}

ErrorTranslatingCreator::ErrorTranslatingCreator(std::shared_ptr<SessionCreator> creator,
                                                 ErrorCode code)
    : creator_(std::move(creator)), code_(code) {}

CustomRecoverableSession::CustomRecoverableSession(std::shared_ptr<SessionCreator> creator,
                                                   ErrorCode also_recover,
                                                   RecoveryOptions options)
    : RecoverableSession(std::make_shared<ErrorTranslatingCreator>(creator, also_recover),
                         options) {}

// [mts:exercise-todo]
std::vector<Tensor> ErrorTranslatingSession::Run(const std::vector<Output>& fetches,
                                                 const FeedDict& feeds,
                                                 const std::vector<Operation*>& targets,
                                                 const RunOptions& options,
                                                 RunMetadata* run_metadata) {
  // TODO: catch an OpError whose code() is code_ and throw AbortedError(e.message()) instead.
  return WrappedSession::Run(fetches, feeds, targets, options, run_metadata);
}

void ErrorTranslatingSession::Close() {
  // TODO: the same translation around closing.
  WrappedSession::Close();
}

bool ErrorTranslatingSession::InnerShouldStop() {
  // TODO: the same translation around the layers' answer.
  return WrappedSession::InnerShouldStop();
}

std::unique_ptr<SessionInterface> ErrorTranslatingCreator::CreateSession() {
  // TODO: translate creation errors of code_ too, and wrap the new session in an
  // ErrorTranslatingSession.
  return creator_->CreateSession();
}
// [mts:exercise-todo-end]

}  // namespace mts
