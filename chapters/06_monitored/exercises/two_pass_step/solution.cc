// Reference solution for the TwoPassStep exercise.
#include "chapters/06_monitored/exercises/two_pass_step/two_pass_step.h"
#include "src/01_session/training_util.h"
#include "src/06_monitored/step_context.h"

namespace mts {

int64_t TwoPassStep(MonitoredSession& session, Operation* train_op) {
  const Variable global_step = GetOrCreateGlobalStep(train_op->graph());
  // Everything the step does lives inside the step function: after a recovery RunStepFn
  // calls it again, and both passes must then run on the new session.
  return session.RunStepFn([&](StepContext& context) {
    context.session().Run({}, {}, {train_op});  // The first pass: no hook sees it.
    context.RunWithHooks({}, {}, {train_op});   // The second: the step the hooks see.
    return GlobalStepValue(context.session(), global_step);
  });
}

}  // namespace mts
