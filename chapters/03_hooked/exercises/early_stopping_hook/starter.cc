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
// TODO(student): the header states the contract. Decide where the loss comes from (a hook
// may also run the session itself from AfterRun: why must it not?), how to read it whatever
// its dtype, and how to write the comparison so that a NaN, first or later, never becomes
// or beats the best. Ask for the stop through run_context.
SessionRunArgs EarlyStoppingHook::BeforeRun(SessionRunContext& run_context) { return {}; }

void EarlyStoppingHook::AfterRun(SessionRunContext& run_context,
                                 const SessionRunValues& run_values) {}
// [mts:exercise-todo-end]

}  // namespace mts
