// evaluation_hook.h: chapter 06's exercise: watch a metric while the model trains, every N
// steps and once more at the end, without slowing the other steps down.
//
//   MonitoredSession       a clean Close calls End: the final evaluation
//     RecoverableSession
//       CoordinatedSession
//         HookedSession    <-- EvaluationHook is one of its hooks: it fetches the global
//           Chief / Worker     step with every run and, every N steps, evaluates
//             Session      <-- the evaluation runs here, on the raw session
//
// Training minimises a loss on the training data; what we care about is a metric the
// optimizer never sees, such as the error on held-out examples. Computing it is a run of
// its own, so it should happen every N steps, not every step, and without going through
// the hooks: a run through the HookedSession from inside a hook would call every hook
// again, this one included. The run context hands a hook the raw session for exactly this.
//
// Deciding *when* costs nothing extra: the hook adds the global step's read tensor to each
// run's fetches. It holds the step from before the run's increment, so the step after the
// run is probably that value plus one, and that estimate decides whether to evaluate. But
// the step does not always move by one: other workers' updates land in between, a step
// function makes several updates per step, a recovery without a checkpoint starts the
// model again from 0. So "a multiple of N" is the wrong test (a jump can skip it), and the
// estimate is the wrong step to report. As TensorFlow's periodic hooks do, this one
// evaluates once at least N steps have passed since its last evaluation (or since the
// model was rolled back below it), and then reads the exact step in the same raw run as
// the metric.
//
// At a clean close, End evaluates once more at the exact final step; a session closed
// after an error (CloseAfterError, or a `with` body that raised) gets no End, so a model
// that just failed is not reported as final.
#ifndef MTS_CHAPTERS_06_MONITORED_EXERCISES_EVALUATION_HOOK_EVALUATION_HOOK_H_
#define MTS_CHAPTERS_06_MONITORED_EXERCISES_EVALUATION_HOOK_EVALUATION_HOOK_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "src/03_hooked/session_run_hook.h"

namespace mts {

// [mts:evaluation-hook-api]
/// Evaluates a scalar metric every N global steps, and once at a clean close.
class EvaluationHook : public SessionRunHook {
 public:
  /// One evaluation: the global step the model was at, and the metric's value there.
  struct Evaluation {
    int64_t step;  ///< The global step after the run that triggered the evaluation.
    float value;   ///< The metric, computed on the raw session.
  };

  /// Evaluates `eval_metric` (a float32 scalar, of the graph the session will run) every
  /// `every_n_steps` global steps: at every_n_steps, 2 * every_n_steps, ... while the step
  /// moves by one per run.
  /// \throws ValueError "every_n_steps must be at least 1, got <n>." otherwise.
  EvaluationHook(Output eval_metric, int64_t every_n_steps);

  /// Finds (or makes) the global step's read tensor in the default graph.
  /// \throws RuntimeError "EvaluationHook needs a global step; ..." if the graph has none.
  void Begin() override;
  /// Adds the global step's read tensor to the run's fetches.
  SessionRunArgs BeforeRun(SessionRunContext& run_context) override;
  /// If the fetched step plus one is at least every_n_steps past the last evaluation's
  /// step (0 at first; a fetched step below that step means the model was rolled back,
  /// and the count starts again from the fetched step), runs the metric and the exact
  /// global step in one run of run_context.session() and records the metric at that step.
  /// \throws OpError as running the metric throws it.
  void AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) override;
  /// Evaluates once more, at the session's exact global step: final_evaluation().
  /// \throws OpError as reading the step or running the metric throws it.
  void End(SessionInterface& session) override;

  /// The periodic evaluations, in the order they were made.
  const std::vector<Evaluation>& evaluations() const { return evaluations_; }
  /// The evaluation End made; std::nullopt until a clean close.
  const std::optional<Evaluation>& final_evaluation() const { return final_evaluation_; }

 private:
  Output eval_metric_;
  int64_t every_n_steps_;
  Output global_step_read_;  // Found by Begin.
  int64_t last_step_ = 0;    // The step of the last evaluation, or where training resumed.
  std::vector<Evaluation> evaluations_;
  std::optional<Evaluation> final_evaluation_;
};
// [mts:evaluation-hook-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_06_MONITORED_EXERCISES_EVALUATION_HOOK_EVALUATION_HOOK_H_
