// Reference solution for the custom recoverable error exercise.
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

std::vector<Tensor> ErrorTranslatingSession::Run(const std::vector<Output>& fetches,
                                                 const FeedDict& feeds,
                                                 const std::vector<Operation*>& targets,
                                                 const RunOptions& options,
                                                 RunMetadata* run_metadata) {
  try {
    return WrappedSession::Run(fetches, feeds, targets, options, run_metadata);
  } catch (const OpError& e) {
    if (e.code() != code_) throw;
    throw AbortedError(e.message(), e.op_name());
  }
}

void ErrorTranslatingSession::Close() {
  try {
    WrappedSession::Close();
  } catch (const OpError& e) {
    if (e.code() != code_) throw;
    throw AbortedError(e.message(), e.op_name());
  }
}

bool ErrorTranslatingSession::InnerShouldStop() {
  try {
    return WrappedSession::InnerShouldStop();
  } catch (const OpError& e) {
    if (e.code() != code_) throw;
    throw AbortedError(e.message(), e.op_name());
  }
}

std::unique_ptr<SessionInterface> ErrorTranslatingCreator::CreateSession() {
  try {
    return std::make_unique<ErrorTranslatingSession>(creator_->CreateSession(), code_);
  } catch (const OpError& e) {
    if (e.code() != code_) throw;
    throw AbortedError(e.message(), e.op_name());
  }
}

}  // namespace mts
