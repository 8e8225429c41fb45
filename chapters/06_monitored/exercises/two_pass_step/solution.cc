// The TwoPassStep exercise of chapter 06: TwoPassStep(), so that two_pass_step_test
// passes. The part to write lies between the `[mts:lab two_pass_step]` markers; the comment
// outside them says what to decide.
#include "chapters/06_monitored/exercises/two_pass_step/two_pass_step.h"
#include "src/01_session/training_util.h"
#include "src/06_monitored/step_context.h"

namespace mts {

// [mts:exercise-todo]
int64_t TwoPassStep(MonitoredSession& session, Operation* train_op, const Output& batch) {
  // TODO(student): the contract is in the header: one call of session.RunStepFn, two passes
  // of train_op (the first on the raw session, the second with the hooks), one batch.
  // Decide what must happen inside the step function and what may happen outside it (a
  // recovery calls it again, on a new session), how the second pass trains on the first
  // pass's batch without taking another, and where the returned step is read from.
  // [mts:lab two_pass_step]
  const Variable global_step = GetOrCreateGlobalStep(train_op->graph());
  // Everything the step does lives inside the step function: after a recovery RunStepFn
  // calls it again, and both passes must then run on the new session (and on a batch taken
  // there: the old session's input is gone with it).
  return session.RunStepFn([&](StepContext& context) {
    // The first pass takes the batch and trains on it; no hook sees it. Fetching `batch`
    // costs nothing more: it is evaluated once per run whoever asks for it.
    const Tensor taken = context.session().Run({batch}, {}, {train_op})[0];
    // The second pass is fed the same batch: a fed tensor is not computed, so nothing is
    // taken from the input, and a hook fetching `batch` gets the one trained on.
    context.RunWithHooks({}, {{batch, taken}}, {train_op});
    return GlobalStepValue(context.session(), global_step);
  });
  // [mts:lab-end]
}
// [mts:exercise-todo-end]

}  // namespace mts
