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
//
// The decision the exercise asks for: a preemption is cured by a restart, but is this
// code? A model whose every step takes longer than the storage's deadline times out on
// every stack, and a translator that always translates turns that into recovery for ever,
// silently. So the translation has a budget: at most `max_in_a_row` errors of the code are
// made recoverable without a successful run in between; the next one reaches the caller as
// what it is. The count must outlive each stack (a recovery builds a new translator), so
// the creator and all its sessions share it.
#ifndef MTS_CHAPTERS_05_RECOVERABLE_EXERCISES_CUSTOM_RECOVERABLE_ERROR_CUSTOM_RECOVERABLE_ERROR_H_
#define MTS_CHAPTERS_05_RECOVERABLE_EXERCISES_CUSTOM_RECOVERABLE_ERROR_CUSTOM_RECOVERABLE_ERROR_H_

#include <memory>

#include "src/02_chief_worker/session_creator.h"
#include "src/03_hooked/wrapped_session.h"
#include "src/05_recoverable/recoverable_session.h"
#include "src/platform/errors.h"

namespace mts {

// [mts:custom-recoverable-api]
/// How many errors of the chosen code in a row may still become AbortedError; shared by a
/// creator and every session it makes.
struct TranslationBudget {
  int max_in_a_row = 3;  ///< The limit.
  int in_a_row = 0;      ///< Errors translated since the last successful run.
};

/// A pass-through layer that rethrows errors of one code as AbortedError (same message),
/// within a budget.
class ErrorTranslatingSession : public WrappedSession {
 public:
  /// Wraps `inner`; errors of `code` from it become AbortedError while `budget` allows.
  ErrorTranslatingSession(std::unique_ptr<SessionInterface> inner, ErrorCode code,
                          std::shared_ptr<TranslationBudget> budget);
  /// \cond
  using WrappedSession::Run;
  /// \endcond
  /// Forwards; a successful run restores the whole budget.
  /// \throws AbortedError for an error of the chosen code, unless max_in_a_row of them were
  ///   translated since the last successful run: then that error as it is. Other errors as
  ///   they are.
  std::vector<Tensor> Run(const std::vector<Output>& fetches, const FeedDict& feeds = {},
                          const std::vector<Operation*>& targets = {},
                          const RunOptions& options = {},
                          RunMetadata* run_metadata = nullptr) override;
  /// Closes the layers below. \throws AbortedError for an error of the chosen code (a
  ///   thread's error re-raised when its coordinator joins), which the layer above
  ///   swallows like any preemption error while closing; always, and without spending the
  ///   budget: the stack is being thrown away. Other errors as they are.
  void Close() override;

 protected:
  /// Asks the layers below; an error of the chosen code (a thread's, recorded in the
  /// coordinator) is rethrown as AbortedError within the budget, as in Run, so the layer
  /// above recovers from it too.
  bool InnerShouldStop() override;

 private:
  ErrorCode code_;
  std::shared_ptr<TranslationBudget> budget_;
};

/// A creator whose sessions are ErrorTranslatingSessions, and whose own errors of the
/// chosen code (while creating) are AbortedErrors as well, within the same budget.
class ErrorTranslatingCreator : public SessionCreator {
 public:
  /// Wraps `creator`; translates `code`, at most `max_in_a_row` times without a successful
  /// run in between. \pre max_in_a_row >= 0.
  ErrorTranslatingCreator(std::shared_ptr<SessionCreator> creator, ErrorCode code,
                          int max_in_a_row = 3);
  /// `creator`'s session in an ErrorTranslatingSession sharing this creator's budget.
  /// \throws AbortedError for an error of the chosen code, within the budget; other errors
  ///   (and that one past the budget) as they are.
  std::unique_ptr<SessionInterface> CreateSession() override;

 private:
  std::shared_ptr<SessionCreator> creator_;
  ErrorCode code_;
  std::shared_ptr<TranslationBudget> budget_;
};

/// A RecoverableSession that also recovers from errors of `also_recover`, up to
/// `max_in_a_row` of them without a successful run in between.
class CustomRecoverableSession : public RecoverableSession {
 public:
  /// As RecoverableSession(creator, options), with `creator` wrapped in an
  /// ErrorTranslatingCreator for `also_recover` and `max_in_a_row`.
  CustomRecoverableSession(std::shared_ptr<SessionCreator> creator, ErrorCode also_recover,
                           RecoveryOptions options = {}, int max_in_a_row = 3);
};
// [mts:custom-recoverable-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_05_RECOVERABLE_EXERCISES_CUSTOM_RECOVERABLE_ERROR_CUSTOM_RECOVERABLE_ERROR_H_
