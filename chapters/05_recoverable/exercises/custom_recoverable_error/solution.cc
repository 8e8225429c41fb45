// The custom recoverable error exercise of chapter 05: ErrorTranslatingSession's Run(),
// Close() and InnerShouldStop() and ErrorTranslatingCreator::CreateSession(), so that
// custom_recoverable_error_test passes (the constructors are given). The parts to write lie
// between the `[mts:lab custom_recoverable_error]` markers; the comment outside them says
// what to decide.
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
// TODO(student): the contract is in the header. Translate errors of code_ into AbortedError
// in every path by which an error reaches the recoverable layer (which ones are there?), so
// that it recovers from them as from a preemption. Decide how the budget is spent and
// given back: which events count as "in a row", which one proves that the failures were
// transient, and why Close is treated differently. Rethrow what you do not translate as
// it is, not as a copy. The session below is reached through WrappedSession (Run, Close,
// InnerShouldStop), the creator below through creator_->CreateSession().
// [mts:lab custom_recoverable_error]
namespace {

// Rethrows `e` as AbortedError if it has `code` and `budget` allows, else as it is. A
// translation spends one unit; only a successful run gives them back.
[[noreturn]] void Translate(const OpError& e, ErrorCode code, TranslationBudget* budget) {
  if (e.code() != code) throw;
  if (budget != nullptr) {
    // Past the budget the error is not one a restart cures: the caller must see it.
    if (budget->in_a_row >= budget->max_in_a_row) throw;
    ++budget->in_a_row;
  }
  throw AbortedError(e.message(), e.op_name());
}

}  // namespace
// [mts:lab-end]

std::vector<Tensor> ErrorTranslatingSession::Run(const std::vector<Output>& fetches,
                                                 const FeedDict& feeds,
                                                 const std::vector<Operation*>& targets,
                                                 const RunOptions& options,
                                                 RunMetadata* run_metadata) {
  // [mts:lab custom_recoverable_error]
  try {
    std::vector<Tensor> results =
        WrappedSession::Run(fetches, feeds, targets, options, run_metadata);
    budget_->in_a_row = 0;  // Progress: the stack works, the failures were transient.
    return results;
  } catch (const OpError& e) {
    Translate(e, code_, budget_.get());
  }
  // [mts:lab-end]
}

void ErrorTranslatingSession::Close() {
  // [mts:lab custom_recoverable_error]
  try {
    WrappedSession::Close();
  } catch (const OpError& e) {
    // A stack being thrown away: the layer above swallows preemption errors while it
    // closes, so translate always, and spend nothing.
    Translate(e, code_, nullptr);
  }
  // [mts:lab-end]
}

bool ErrorTranslatingSession::InnerShouldStop() {
  // [mts:lab custom_recoverable_error]
  try {
    return WrappedSession::InnerShouldStop();
  } catch (const OpError& e) {
    Translate(e, code_, budget_.get());
  }
  // [mts:lab-end]
}

std::unique_ptr<SessionInterface> ErrorTranslatingCreator::CreateSession() {
  // [mts:lab custom_recoverable_error]
  try {
    // A creation that succeeds is no progress yet: a model that times out on every run
    // would be created again and again. Only a run restores the budget.
    return std::make_unique<ErrorTranslatingSession>(creator_->CreateSession(), code_, budget_);
  } catch (const OpError& e) {
    Translate(e, code_, budget_.get());
  }
  // [mts:lab-end]
}
// [mts:exercise-todo-end]

}  // namespace mts
