// Starter for the TwoPassStep exercise.
#include "chapters/06_monitored/exercises/two_pass_step/two_pass_step.h"
#include "src/01_session/training_util.h"
#include "src/06_monitored/step_context.h"

namespace mts {

// [mts:exercise-todo]
int64_t TwoPassStep(MonitoredSession& session, Operation* train_op, const Output& batch) {
  // TODO: the contract is in the header: one call of session.RunStepFn, two passes of
  // train_op (the first on the raw session, the second with the hooks), one batch. Decide
  // what must happen inside the step function and what may happen outside it (a recovery
  // calls it again, on a new session), how the second pass trains on the first pass's
  // batch without taking another, and where the returned step is read from.
  return 0;
}
// [mts:exercise-todo-end]

}  // namespace mts
