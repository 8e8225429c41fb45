// Starter for the RecoveryCounterHook exercise.
#include "chapters/05_recoverable/exercises/recovery_counter_hook/recovery_counter_hook.h"

#include "src/01_session/learning/summary.pb.h"
#include "src/01_session/training_util.h"

namespace mts {

RecoveryCounterHook::RecoveryCounterHook(std::shared_ptr<FileWriter> writer)
    : writer_(std::move(writer)) {}

// [mts:exercise-todo]
void RecoveryCounterHook::AfterCreateSession(SessionInterface& session, Coordinator* coord) {
  // TODO: the first call only marks the start (started_). Each later call is a recovery:
  // count it, and if there is a writer, add a Summary with one Value, tag "recoveries",
  // simple_value the count, at the global step read from `session` (GetGlobalStep of
  // session.graph(), GlobalStepValue; 0 without a step).
}
// [mts:exercise-todo-end]

}  // namespace mts
