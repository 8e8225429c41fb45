// stop_at_step_hook.h: ends training when the global step reaches a given step.
//
// Stage 03, a hook: HookedSession calls it around every run, and ShouldStop() is true once
// it asks. The target is last_step, or num_steps past the step of the first session (fixed
// once: a recovery keeps it). After a run it estimates the step as the fetched (stale) value
// plus one, and confirms with a raw read before it asks to stop.
//
// Lifecycle: construct; Begin; AfterCreateSession (fixes last_step); BeforeRun / AfterRun
// per step. Thread safety: one thread calls a hook.
//
// Example: auto stop = StopAtStepHook::AtLastStep(10000);   // or ::ForNumSteps(500)
//
// TensorFlow: tf.train.StopAtStepHook (tensorflow/python/training/basic_session_run_hooks.py).
#ifndef MTS_SRC_03_HOOKED_HOOKS_STOP_AT_STEP_HOOK_H_
#define MTS_SRC_03_HOOKED_HOOKS_STOP_AT_STEP_HOOK_H_

#include <cstdint>
#include <memory>
#include <optional>

#include "src/03_hooked/session_run_hook.h"

namespace mts {

/// Requests a stop once the global step reaches `last_step`.
class StopAtStepHook : public SessionRunHook {
 public:
  /// TensorFlow's form, `StopAtStepHook(num_steps=None, last_step=None)`: exactly one of
  /// `num_steps` and `last_step` is given, the other is std::nullopt. The named factories
  /// below read better and cannot get this wrong.
  /// \throws ValueError "One of num_steps or last_step must be specified." if neither is
  ///   given; ValueError("Only one of num_steps or last_step can be specified.") if both are;
  ///   ValueError("num_steps must be >= 0, ...") for a negative count (beyond TensorFlow).
  StopAtStepHook(std::optional<int64_t> num_steps, std::optional<int64_t> last_step);

  /// A hook that stops `num_steps` global steps after the step of the first session.
  static std::shared_ptr<StopAtStepHook> ForNumSteps(int64_t num_steps) {
    return std::make_shared<StopAtStepHook>(num_steps, std::nullopt);
  }
  /// A hook that stops once the global step is at least `last_step`.
  static std::shared_ptr<StopAtStepHook> AtLastStep(int64_t last_step) {
    return std::make_shared<StopAtStepHook>(std::nullopt, last_step);
  }

  /// Finds (or makes) the global step's read tensor in the default graph.
  /// \throws RuntimeError "Global step should be created to use StopAtStepHook." if the
  ///   graph has no global step.
  void Begin() override;
  /// The first time only, if built with num_steps: last_step = current step + num_steps.
  void AfterCreateSession(SessionInterface& session, Coordinator* coord) override;
  /// Fetches the global step's read tensor.
  SessionRunArgs BeforeRun(SessionRunContext& run_context) override;
  /// Requests a stop if the step reached last_step (estimated, then confirmed by a raw read).
  void AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) override;

  /// The target step: the one given, or the one computed from num_steps in the first
  /// AfterCreateSession; std::nullopt before that.
  std::optional<int64_t> last_step() const { return last_step_; }

 private:
  std::optional<int64_t> num_steps_;
  std::optional<int64_t> last_step_;
  Output global_step_read_;
};

}  // namespace mts

#endif  // MTS_SRC_03_HOOKED_HOOKS_STOP_AT_STEP_HOOK_H_
