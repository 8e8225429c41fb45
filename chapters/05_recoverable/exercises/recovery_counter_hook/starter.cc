// Starter for the RecoveryCounterHook exercise.
#include "chapters/05_recoverable/exercises/recovery_counter_hook/recovery_counter_hook.h"
#include "src/01_session/summary.pb.h"
#include "src/01_session/training_util.h"

namespace mts {

RecoveryCounterHook::RecoveryCounterHook(std::shared_ptr<FileWriter> writer)
    : writer_(std::move(writer)) {}

void RecoveryCounterHook::Begin() { step_read_ = GetOrCreateGlobalStepRead(); }

// [mts:exercise-todo]
// TODO: recoveries() must agree with RecoverableSession::num_recoveries(): one per stack,
// after the first, on which training went on. Decide which calls tell you that. A stack
// whose creation fails after your AfterCreateSession (a later hook throws AbortedError, or
// a run made there is preempted) is replaced by another, and AfterCreateSession is called
// again for the same recovery; the very first stack can fail the same way. With a writer,
// each new count is a Summary with one Value, tag "recoveries", simple_value the count,
// at the step the recovered stack starts from; find a way to learn that step that adds no
// run of its own.
void RecoveryCounterHook::AfterCreateSession(SessionInterface&, Coordinator*) {}

SessionRunArgs RecoveryCounterHook::BeforeRun(SessionRunContext&) { return {}; }

void RecoveryCounterHook::AfterRun(SessionRunContext&, const SessionRunValues&) {}
// [mts:exercise-todo-end]

}  // namespace mts
