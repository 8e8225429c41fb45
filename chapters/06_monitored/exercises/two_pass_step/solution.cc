// Reference solution for the TwoPassStep exercise.
#include "chapters/06_monitored/exercises/two_pass_step/two_pass_step.h"
#include "src/01_session/training_util.h"
#include "src/06_monitored/step_context.h"

namespace mts {

int64_t TwoPassStep(MonitoredSession& session, Operation* train_op, const Output& batch) {
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
}

}  // namespace mts
