// solution.cc: the reference solution to the early_stopping_hook exercise of chapter 03.
// The student copy (tools/export_student_copy.sh) leaves this file out.
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

SessionRunArgs EarlyStoppingHook::BeforeRun(SessionRunContext& run_context) {
  // In the training run itself: watching the loss costs no extra pass over the graph.
  SessionRunArgs args;
  args.fetches = {loss_};
  return args;
}

void EarlyStoppingHook::AfterRun(SessionRunContext& run_context,
                                 const SessionRunValues& run_values) {
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
}

}  // namespace mts
