// two_pass_step.h: chapter 06's exercise: one training step made of two optimizer passes,
// of which the hooks see only the second.
//
//   MonitoredSession       RunStepFn calls TwoPassStep's step function (again, on a new
//     RecoverableSession   stack, after a preemption error)
//       CoordinatedSession
//         HookedSession    <-- the second pass goes through here: RunWithHooks
//           Chief / Worker
//             Session      <-- the first pass runs here directly: StepContext::session()
//
// Some training schemes take several updates per logical step: a GAN trains its
// discriminator, then its generator; a lookahead optimizer takes a fast step, then a slow
// one. The hooks must see one step per loop iteration, not one per update: a summary hook
// would otherwise write twice, a step counter would count twice, and a hook that fetches
// values would get them from a half-done step. A step function gives that control: it runs
// the first pass on the raw session, which no hook sees, and the second through
// RunWithHooks, which every hook sees once. If either pass is preempted, RunStepFn
// recovers and calls the step function again from the start, on the new raw session, so
// the step is never left half done on the new stack.
//
// One logical step is also one batch. The input is an op that takes the next batch each
// time a run evaluates it (a dequeue, chapter 04): two passes that each evaluate it train
// on two batches, consume the data twice as fast, and the hooks see a batch the first pass
// never used. Both passes must train on the batch the step took, and the hooks must see
// that batch too: deciding how is the exercise (chapter 01's feeds are the tool).
#ifndef MTS_CHAPTERS_06_MONITORED_EXERCISES_TWO_PASS_STEP_TWO_PASS_STEP_H_
#define MTS_CHAPTERS_06_MONITORED_EXERCISES_TWO_PASS_STEP_TWO_PASS_STEP_H_

#include <cstdint>

#include "src/01_session/graph.h"
#include "src/06_monitored/monitored_session.h"

namespace mts {

// [mts:two-pass-step-api]
/// Runs `train_op` twice in one call of `session.RunStepFn`: first on the raw session (no
/// hook sees it), then through the hooks (each hook's BeforeRun and AfterRun once).
/// `train_op` increments the global step, so the step advances by 2 per call.
/// `batch` is the input `train_op` reads; each run that evaluates it takes the next batch.
/// One call takes one batch: both passes train on it, and a hook that fetches `batch` in
/// the second pass gets it too.
/// A preemption error in either pass is recovered: both passes run again on the new
/// session, on a batch taken there, and the step returned is the new session's.
/// \returns the global step after both passes, read from the raw session.
/// \throws RuntimeError "Run called on a closed MonitoredSession; ..." after Close.
/// \throws OpError as a pass throws it, other than a recovered preemption error.
int64_t TwoPassStep(MonitoredSession& session, Operation* train_op, const Output& batch);
// [mts:two-pass-step-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_06_MONITORED_EXERCISES_TWO_PASS_STEP_TWO_PASS_STEP_H_
