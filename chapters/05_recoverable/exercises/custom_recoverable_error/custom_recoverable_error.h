// custom_recoverable_error.h: chapter 05's exercise: make one more error code recoverable
// without touching the recoverable layer.
//
//   CustomRecoverableSession   a RecoverableSession whose creator wraps each new stack in
//     ErrorTranslatingSession  <-- this layer: one chosen code becomes an AbortedError
//       CoordinatedSession
//         HookedSession
//           Session
//
// Some clusters have failures of their own that a restart cures: a storage backend that
// times out (DeadlineExceededError) while a server restarts, say. The set of preemption
// errors is defined once, in errors.h, and every layer agrees on it; rather than widen it
// for everyone, translate the one code at the top of the stack the recoverable layer
// builds. RecoverableSession then sees an AbortedError and does what it always does.
// Because the translator sits inside what the creator builds, it is rebuilt with the stack.
#ifndef MTS_CHAPTERS_05_RECOVERABLE_EXERCISES_CUSTOM_RECOVERABLE_ERROR_CUSTOM_RECOVERABLE_ERROR_H_
#define MTS_CHAPTERS_05_RECOVERABLE_EXERCISES_CUSTOM_RECOVERABLE_ERROR_CUSTOM_RECOVERABLE_ERROR_H_

#include <memory>

#include "src/platform/errors.h"
#include "src/02_chief_worker/session_creator.h"
#include "src/03_hooked/wrapped_session.h"
#include "src/05_recoverable/recoverable_session.h"

namespace mts {

// [mts:custom-recoverable-api]
/// A pass-through layer that rethrows errors of one code as AbortedError (same message).
class ErrorTranslatingSession : public WrappedSession {
 public:
  /// Wraps `inner`; errors of `code` from it become AbortedError.
  ErrorTranslatingSession(std::unique_ptr<SessionInterface> inner, ErrorCode code);
  /// \cond
  using WrappedSession::Run;
  /// \endcond
  /// Forwards. \throws AbortedError for an error of the chosen code; other errors as they are.
  std::vector<Tensor> Run(const std::vector<Output>& fetches, const FeedDict& feeds = {},
                          const std::vector<Operation*>& targets = {},
                          const RunOptions& options = {},
                          RunMetadata* run_metadata = nullptr) override;
  /// Closes the layers below. \throws AbortedError for an error of the chosen code (a
  ///   thread's error re-raised when its coordinator joins), which the layer above
  ///   swallows like any preemption error while closing; other errors as they are.
  void Close() override;

 protected:
  /// Asks the layers below; an error of the chosen code (a thread's, recorded in the
  /// coordinator) is rethrown as AbortedError, so the layer above recovers from it too.
  bool InnerShouldStop() override;

 private:
  ErrorCode code_;
};

/// A creator whose sessions are ErrorTranslatingSessions, and whose own errors of the
/// chosen code (while creating) are AbortedErrors as well.
class ErrorTranslatingCreator : public SessionCreator {
 public:
  /// Wraps `creator`; translates `code`.
  ErrorTranslatingCreator(std::shared_ptr<SessionCreator> creator, ErrorCode code);
  /// `creator`'s session in an ErrorTranslatingSession.
  /// \throws AbortedError for an error of the chosen code; other errors as they are.
  std::unique_ptr<SessionInterface> CreateSession() override;

 private:
  std::shared_ptr<SessionCreator> creator_;
  ErrorCode code_;
};

/// A RecoverableSession that also recovers from errors of `also_recover`.
class CustomRecoverableSession : public RecoverableSession {
 public:
  /// As RecoverableSession(creator, options), with `creator` wrapped in an
  /// ErrorTranslatingCreator for `also_recover`.
  CustomRecoverableSession(std::shared_ptr<SessionCreator> creator, ErrorCode also_recover,
                           RecoveryOptions options = {});
};
// [mts:custom-recoverable-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_05_RECOVERABLE_EXERCISES_CUSTOM_RECOVERABLE_ERROR_CUSTOM_RECOVERABLE_ERROR_H_
