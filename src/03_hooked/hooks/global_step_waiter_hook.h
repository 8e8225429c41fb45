// global_step_waiter_hook.h: holds a worker back until the global step reaches a given step.
//
// Stage 03, a hook, typically on a non-chief worker started late on purpose: before the
// first run it polls the global step with raw runs, 0.5 s apart on its Clock, until the
// step is at least `wait_until_step`, logging when it starts and whenever the step has
// moved more than 1000 since the last line. Later runs pass straight through.
//
// Lifecycle: construct; Begin (arms the wait); the first BeforeRun waits. Thread safety:
// one thread calls a hook; the wait blocks that thread.
//
// Example: hooks.push_back(std::make_shared<GlobalStepWaiterHook>(task_index * 100));
//
// TensorFlow: tf.train.GlobalStepWaiterHook (basic_session_run_hooks.py).
#ifndef MTS_SRC_03_HOOKED_HOOKS_GLOBAL_STEP_WAITER_HOOK_H_
#define MTS_SRC_03_HOOKED_HOOKS_GLOBAL_STEP_WAITER_HOOK_H_

#include <cstdint>

#include "src/03_hooked/session_run_hook.h"
#include "src/platform/clock.h"

namespace mts {

/// Delays the first run until the global step reaches `wait_until_step`.
class GlobalStepWaiterHook : public SessionRunHook {
 public:
  /// Waits for `wait_until_step` (no wait if it is <= 0), sleeping on `clock` (RealClock()
  /// if null) between reads.
  explicit GlobalStepWaiterHook(int64_t wait_until_step, Clock* clock = nullptr);

  /// Finds (or makes) the global step's read tensor and arms the wait.
  /// \throws RuntimeError "Global step should be created to use _GlobalStepWaiterHook."
  ///   (TensorFlow's text, underscore included) if the graph has no global step.
  void Begin() override;
  /// The first time: returns once the step read with raw runs of run_context.session() is
  /// at least wait_until_step, polling every 0.5 s. Adds nothing to the run.
  SessionRunArgs BeforeRun(SessionRunContext& run_context) override;

 private:
  int64_t wait_until_step_;
  Clock* clock_;
  Output global_step_read_;
  bool worker_is_started_ = false;
};

}  // namespace mts

#endif  // MTS_SRC_03_HOOKED_HOOKS_GLOBAL_STEP_WAITER_HOOK_H_
