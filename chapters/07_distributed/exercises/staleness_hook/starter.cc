// Starter for the staleness hook exercise.
#include "chapters/07_distributed/exercises/staleness_hook/staleness_hook.h"

namespace mts {

StalenessHook::StalenessHook(Variable global_step) : global_step_(global_step) {}

// [mts:exercise-todo]
// TODO: the contract is in the header: measure (now - previous - 1) between this worker's
// runs, but only between runs that can be compared. Decide which pairs cannot: what the
// first run compares with, what a step lower than the last one means on a cluster whose ps
// restarted (and what clamping it to 0 would do to the average), and what a new stack for
// this worker means for the run before it.
void StalenessHook::AfterCreateSession(SessionInterface&, Coordinator*) {}

SessionRunArgs StalenessHook::BeforeRun(SessionRunContext&) { return {}; }

void StalenessHook::AfterRun(SessionRunContext&, const SessionRunValues& run_values) {}
// [mts:exercise-todo-end]

}  // namespace mts
