// Starter for the TwoPassStep exercise.
#include "chapters/06_monitored/exercises/two_pass_step/two_pass_step.h"
#include "src/01_session/training_util.h"
#include "src/06_monitored/step_context.h"

namespace mts {

// [mts:exercise-todo]
int64_t TwoPassStep(MonitoredSession& session, Operation* train_op) {
  // TODO: call session.RunStepFn with a step function (a lambda taking StepContext&) that
  // runs train_op as a target twice: first on context.session() (the raw session, no
  // hooks), then with context.RunWithHooks. Return the global step from inside the step
  // function: GlobalStepValue on the raw session, with GetOrCreateGlobalStep of
  // train_op->graph(). Do nothing outside the step function: a recovery calls it again.
  return 0;
}
// [mts:exercise-todo-end]

}  // namespace mts
