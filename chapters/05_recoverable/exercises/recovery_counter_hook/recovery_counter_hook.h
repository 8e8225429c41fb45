// recovery_counter_hook.h: chapter 05's exercise: count the recoveries a training run
// survived, from inside the stack, and write the count where TensorBoard can plot it.
//
//   RecoverableSession     re-creates the stack below after a preemption error
//     CoordinatedSession
//       HookedSession      <-- RecoveryCounterHook is one of its hooks
//         Chief / Worker
//           Session
//
// A hook never sees a recovery happen: the stack it lives in is thrown away and a new one
// is built around the same hook objects. What it does see is AfterCreateSession, once per
// stack it is part of. But not every such stack goes on to train: a creation can still
// fail after this hook's AfterCreateSession (another hook's, or a run this hook makes
// there, is preempted), and the recoverable layer then builds another stack, calling
// AfterCreateSession once more for the same recovery. Deciding which calls are recoveries
// is this exercise. Counted right, a dashboard shows how often a long job was preempted
// without the hook knowing the recoverable layer exists.
#ifndef MTS_CHAPTERS_05_RECOVERABLE_EXERCISES_RECOVERY_COUNTER_HOOK_RECOVERY_COUNTER_HOOK_H_
#define MTS_CHAPTERS_05_RECOVERABLE_EXERCISES_RECOVERY_COUNTER_HOOK_RECOVERY_COUNTER_HOOK_H_

#include <cstdint>
#include <memory>
#include <optional>

#include "src/03_hooked/events/file_writer.h"
#include "src/03_hooked/session_run_hook.h"

namespace mts {

// [mts:recovery-counter-api]
/// Counts the recoveries: the stacks, after the first, on which training went on.
class RecoveryCounterHook : public SessionRunHook {
 public:
  /// Counts; with a `writer`, also writes each new count as the scalar summary
  /// "recoveries" at the global step the recovered stack starts from (0 if the graph has
  /// no global step).
  explicit RecoveryCounterHook(std::shared_ptr<FileWriter> writer = nullptr);

  /// Finds the global step's read tensor (GetOrCreateGlobalStepRead), if there is a
  /// global step, while the graph can still grow.
  void Begin() override;
  /// A new stack exists, but its creation may still fail after this call (in this hook or
  /// one after it), and a failed creation is retried with yet another stack.
  void AfterCreateSession(SessionInterface& session, Coordinator* coord) override;
  /// The first run handed to a new stack: the stack is in use.
  SessionRunArgs BeforeRun(SessionRunContext& run_context) override;
  /// Writes the count of a recovery noticed in BeforeRun, if there is a writer.
  void AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) override;

  /// Recoveries seen so far: 0 until a second stack serves a run; then, for preemptions
  /// met in runs, RecoverableSession::num_recoveries().
  int64_t recoveries() const { return recoveries_; }

 private:
  std::shared_ptr<FileWriter> writer_;
  std::optional<Output> step_read_;  // Set by Begin, if the graph has a global step.
  bool served_before_ = false;       // Some earlier stack was handed a run.
  bool new_stack_ = false;           // AfterCreateSession was called; no run since.
  bool write_due_ = false;           // This run's AfterRun writes the count.
  int64_t recoveries_ = 0;
};
// [mts:recovery-counter-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_05_RECOVERABLE_EXERCISES_RECOVERY_COUNTER_HOOK_RECOVERY_COUNTER_HOOK_H_
