// The staleness hook exercise of chapter 07: StalenessHook's AfterCreateSession(),
// BeforeRun() and AfterRun(), so that staleness_hook_test passes (the constructor is
// given). The parts to write lie between the `[mts:lab staleness_hook]` markers; the
// comment outside them says what to decide.
#include <algorithm>

#include "chapters/07_distributed/exercises/staleness_hook/staleness_hook.h"

namespace mts {

StalenessHook::StalenessHook(Variable global_step) : global_step_(global_step) {}

// [mts:exercise-todo]
// TODO(student): the contract is in the header: measure (now - previous - 1) between this
// worker's runs, but only between runs that can be compared. Decide which pairs cannot:
// what the first run compares with, what a step lower than the last one means on a cluster
// whose ps restarted (and what clamping it to 0 would do to the average), and what a new
// stack for this worker means for the run before it.
void StalenessHook::AfterCreateSession(SessionInterface&, Coordinator*) {
  // [mts:lab staleness_hook]
  // What landed while this worker was recovering is downtime, not staleness.
  previous_.reset();
  // [mts:lab-end]
}

SessionRunArgs StalenessHook::BeforeRun(SessionRunContext&) {
  // [mts:lab staleness_hook]
  SessionRunArgs args;
  args.fetches = {global_step_.value()};
  return args;
  // [mts:lab-end]
}

void StalenessHook::AfterRun(SessionRunContext&, const SessionRunValues& run_values) {
  // [mts:lab staleness_hook]
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
  // [mts:lab-end]
}
// [mts:exercise-todo-end]

}  // namespace mts
