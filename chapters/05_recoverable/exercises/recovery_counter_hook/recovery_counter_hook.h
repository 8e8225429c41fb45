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
// stack: the first call is the start of training, every later one is a recovery. So a
// hook can count recoveries without knowing the recoverable layer exists, and a dashboard
// can show how often a long job was preempted.
#ifndef MTS_CHAPTERS_05_RECOVERABLE_EXERCISES_RECOVERY_COUNTER_HOOK_RECOVERY_COUNTER_HOOK_H_
#define MTS_CHAPTERS_05_RECOVERABLE_EXERCISES_RECOVERY_COUNTER_HOOK_RECOVERY_COUNTER_HOOK_H_

#include <cstdint>
#include <memory>

#include "src/03_hooked/file_writer.h"
#include "src/03_hooked/session_run_hook.h"

namespace mts {

// [mts:recovery-counter-api]
/// Counts the sessions created after the first one: the recoveries.
class RecoveryCounterHook : public SessionRunHook {
 public:
  /// Counts; with a `writer`, also writes each new count as the scalar summary
  /// "recoveries" at the new session's global step (0 if the graph has no global step).
  explicit RecoveryCounterHook(std::shared_ptr<FileWriter> writer = nullptr);

  /// The first call marks the start; each later call is one more recovery (written to the
  /// writer, if any). \throws whatever reading the global step throws (the session is new:
  ///   a preemption error here is retried by the recoverable layer like any other).
  void AfterCreateSession(SessionInterface& session, Coordinator* coord) override;

  /// Recoveries seen so far (0 until a second session is created).
  int64_t recoveries() const { return recoveries_; }

 private:
  std::shared_ptr<FileWriter> writer_;
  bool started_ = false;
  int64_t recoveries_ = 0;
};
// [mts:recovery-counter-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_05_RECOVERABLE_EXERCISES_RECOVERY_COUNTER_HOOK_RECOVERY_COUNTER_HOOK_H_
