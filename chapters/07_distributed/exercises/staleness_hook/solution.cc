// Reference solution of the staleness hook exercise.
#include <algorithm>

#include "chapters/07_distributed/exercises/staleness_hook/staleness_hook.h"

namespace mts {

StalenessHook::StalenessHook(Variable global_step) : global_step_(global_step) {}

SessionRunArgs StalenessHook::BeforeRun(SessionRunContext&) {
  SessionRunArgs args;
  args.fetches = {global_step_.value()};
  return args;
}

void StalenessHook::AfterRun(SessionRunContext&, const SessionRunValues& run_values) {
  const int64_t now = run_values.results[0].scalar<int64_t>();
  if (previous_) {
    const int64_t staleness = std::max<int64_t>(0, now - *previous_ - 1);
    ++num_measured_;
    total_staleness_ += staleness;
    max_staleness_ = std::max(max_staleness_, staleness);
  }
  previous_ = now;
}

}  // namespace mts
