// Reference solution of the staleness hook exercise.
#include <algorithm>

#include "chapters/07_distributed/exercises/staleness_hook/staleness_hook.h"

namespace mts {

StalenessHook::StalenessHook(Variable global_step) : global_step_(global_step) {}

void StalenessHook::AfterCreateSession(SessionInterface&, Coordinator*) {
  // What landed while this worker was recovering is downtime, not staleness.
  previous_.reset();
}

SessionRunArgs StalenessHook::BeforeRun(SessionRunContext&) {
  SessionRunArgs args;
  args.fetches = {global_step_.value()};
  return args;
}

void StalenessHook::AfterRun(SessionRunContext&, const SessionRunValues& run_values) {
  const int64_t now = run_values.results[0].scalar<int64_t>();
  if (previous_ && now < *previous_) {
    // The step went backwards: a restore. Comparing across it would be a measure of the
    // restore, and clamping it to 0 would report a perfectly fresh step that was not.
    ++num_step_resets_;
  } else if (previous_) {
    // Equal is possible (the previous run did not train): no update landed, staleness 0.
    const int64_t staleness = std::max<int64_t>(0, now - *previous_ - 1);
    ++num_measured_;
    total_staleness_ += staleness;
    max_staleness_ = std::max(max_staleness_, staleness);
  }
  previous_ = now;
}

}  // namespace mts
