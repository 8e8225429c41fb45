// starter.cc: an exercise of chapter 03, to be completed. Write BeforeRun() and AfterRun()
// so that early_stopping_hook_test passes:
//
//   bazel test --define=exercises=starter //chapters/03_hooked/exercises/early_stopping_hook:all
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
// TODO(student): BeforeRun asks for the loss, so that it arrives in the very run that
// trains (look at how nan_tensor_hook.cc does it). AfterRun finds the value in
// run_values.results, in the order BeforeRun asked; read it as a double whatever its dtype
// (Tensor::dtype(), scalar<float>(), scalar<double>()). Then follow the two rules of the
// header, and ask for the stop through run_context.
SessionRunArgs EarlyStoppingHook::BeforeRun(SessionRunContext& run_context) { return {}; }

void EarlyStoppingHook::AfterRun(SessionRunContext& run_context,
                                 const SessionRunValues& run_values) {}
// [mts:exercise-todo-end]

}  // namespace mts
