// The early_stopping_hook exercise of chapter 03: EarlyStoppingHook::BeforeRun() and
// AfterRun(), so that early_stopping_hook_test passes (the constructor and Begin() are
// given). The parts to write lie between the `[mts:lab early_stopping_hook]` markers; the
// comment outside them says what to decide.
#include <cmath>

#include "chapters/03_hooked/exercises/early_stopping_hook/early_stopping_hook.h"
#include "src/platform/errors.h"

namespace mts {

EarlyStoppingHook::EarlyStoppingHook(const Output& loss, int64_t patience, double min_delta)
    : loss_(loss), patience_(patience), min_delta_(min_delta) {
  if (patience < 1) throw ValueError("EarlyStoppingHook: patience must be at least 1");
  if (!(min_delta >= 0)) throw ValueError("EarlyStoppingHook: min_delta must be >= 0");
}

void EarlyStoppingHook::Begin() {
  best_loss_.reset();
  steps_without_improvement_ = 0;
}

// [mts:exercise-todo]
// TODO(student): the header states the contract. Decide where the loss comes from (a hook
// may also run the session itself from AfterRun: why must it not?), how to read it whatever
// its dtype, and how to write the comparison so that a NaN, first or later, never becomes
// or beats the best. Ask for the stop through run_context.
SessionRunArgs EarlyStoppingHook::BeforeRun(SessionRunContext& run_context) {
  // [mts:lab early_stopping_hook]
  // In the training run itself: watching the loss costs no extra pass over the graph.
  SessionRunArgs args;
  args.fetches = {loss_};
  return args;
  // [mts:lab-end]
}

void EarlyStoppingHook::AfterRun(SessionRunContext& run_context,
                                 const SessionRunValues& run_values) {
  // [mts:lab early_stopping_hook]
  const Tensor& value = run_values.results[0];
  const double loss = value.dtype() == DataType::kFloat ? static_cast<double>(value.scalar<float>())
                                                        : value.scalar<double>();
  // Written so that a NaN, for which every comparison is false, is not an improvement, and
  // the first loss counts only if it is a number: a NaN best could never be beaten.
  if (best_loss_ ? loss < *best_loss_ - min_delta_ : !std::isnan(loss)) {
    best_loss_ = loss;
    steps_without_improvement_ = 0;
    return;
  }
  if (++steps_without_improvement_ >= patience_) run_context.RequestStop();
  // [mts:lab-end]
}
// [mts:exercise-todo-end]

}  // namespace mts
