// Starter for the staleness hook exercise.
#include "chapters/07_distributed/exercises/staleness_hook/staleness_hook.h"

namespace mts {

StalenessHook::StalenessHook(Variable global_step) : global_step_(global_step) {}

// [mts:exercise-todo]
SessionRunArgs StalenessHook::BeforeRun(SessionRunContext&) {
  // TODO: fetch global_step_.value() in every run.
  return {};
}

void StalenessHook::AfterRun(SessionRunContext&, const SessionRunValues& run_values) {
  // TODO: read the fetched step; from the second run on, add (now - previous - 1), at least
  // 0, to the totals; remember now as previous_.
}
// [mts:exercise-todo-end]

}  // namespace mts
