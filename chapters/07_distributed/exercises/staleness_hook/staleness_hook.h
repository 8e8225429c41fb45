// staleness_hook.h: chapter 07's exercise: measure how stale a worker's steps are.
//
//   HookedSession        calls the hook around each step of one worker
//     StalenessHook      <-- this exercise: how many other updates landed between my steps
//       RemoteSession    reads the global step from the ps at the start of each step
//
// Between-graph replication is asynchronous: while one worker computes its gradient from the
// values it read, the others push theirs. The global step makes that visible. A worker that
// reads step s in one step and step s' in its next has seen s' - s - 1 updates by the other
// workers in between: its next gradient is computed on values that many updates newer than
// its last. With n equally fast workers the staleness is about n - 1.
//
// Two runs are not always comparable, and deciding when they are is the exercise. The
// first run has nothing before it. The global step can go backwards: when a ps task
// restarts, the chief restores the newest checkpoint (or initialises again), and every
// worker then reads a step lower than its last. And this worker's own stack can be rebuilt
// after a preemption: the updates that landed while it recovered are time spent
// recovering, not the age of the values a gradient was computed on.
#ifndef MTS_CHAPTERS_07_DISTRIBUTED_EXERCISES_STALENESS_HOOK_STALENESS_HOOK_H_
#define MTS_CHAPTERS_07_DISTRIBUTED_EXERCISES_STALENESS_HOOK_STALENESS_HOOK_H_

#include <cstdint>
#include <optional>

#include "src/01_session/variables.h"
#include "src/03_hooked/session_run_hook.h"

namespace mts {

// [mts:staleness-hook-api]
/// Records, for each run that can be compared with this worker's previous one, how many
/// other updates of the global step landed in between.
class StalenessHook : public SessionRunHook {
 public:
  /// Watches `global_step`.
  explicit StalenessHook(Variable global_step);
  /// A new stack for this worker (the first, or after a recovery): the next run has no
  /// previous run to be compared with.
  void AfterCreateSession(SessionInterface& session, Coordinator* coord) override;
  /// Asks for the global step's value in every run (read at the start of the run).
  SessionRunArgs BeforeRun(SessionRunContext& run_context) override;
  /// Compares it with the previous run's: (now - previous - 1) other updates, never below
  /// 0. A step lower than the previous one is a reset (a restore), not a measurement.
  void AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) override;

  /// How many runs were measured (not the first, nor one after a new stack or a reset).
  int64_t num_measured() const { return num_measured_; }
  /// The sum of the measured staleness.
  int64_t total_staleness() const { return total_staleness_; }
  /// The largest one measured (0 if none).
  int64_t max_staleness() const { return max_staleness_; }
  /// How many times the global step was seen to go backwards.
  int64_t num_step_resets() const { return num_step_resets_; }

 private:
  Variable global_step_;
  std::optional<int64_t> previous_;
  int64_t num_measured_ = 0;
  int64_t total_staleness_ = 0;
  int64_t max_staleness_ = 0;
  int64_t num_step_resets_ = 0;
};
// [mts:staleness-hook-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_07_DISTRIBUTED_EXERCISES_STALENESS_HOOK_STALENESS_HOOK_H_
