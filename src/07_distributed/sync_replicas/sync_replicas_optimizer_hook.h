// sync_replicas_optimizer_hook.h: the hook that starts synchronous replicas in a session.
//
//   06_monitored  MonitoredTrainingSession calls Begin, then AfterCreateSession per session
//     SyncReplicasOptimizerHook   <-- this file
//       SyncReplicasOptimizer     whose ops it runs
//
// Lifecycle:
//   1. Begin: checks that ApplyGradients was called; on the chief, builds the op that puts
//      the initial tokens.
//   2. AfterCreateSession: checks the global variables are set (the chief initialised
//      them), then runs the local init: on the chief chief_init_op (local step and every
//      accumulator := the global step), the initial tokens, and starts the chief's queue
//      runner with the session's Coordinator; on a worker local_step_init_op.
// Every worker needs it, the chief above all: without the chief's, no tokens are ever put,
// and the workers wait for ever (they log it, SyncReplicasOptions::wait_warning_secs).
//
// TensorFlow: _SyncReplicasOptimizerHook
// (tensorflow/python/training/sync_replicas_optimizer.py).
#ifndef MTS_SRC_07_DISTRIBUTED_SYNC_REPLICAS_SYNC_REPLICAS_OPTIMIZER_HOOK_H_
#define MTS_SRC_07_DISTRIBUTED_SYNC_REPLICAS_SYNC_REPLICAS_OPTIMIZER_HOOK_H_

#include <memory>

#include "src/03_hooked/session_run_hook.h"
#include "src/04_coordinated/queue_runner.h"

namespace mts {

class SyncReplicasOptimizer;

/// Runs a SyncReplicasOptimizer's init ops and, on the chief, its queue runner.
class SyncReplicasOptimizerHook : public SessionRunHook {
 public:
  /// A hook for `sync_optimizer` (which must outlive it) on the chief or on a worker;
  /// the chief puts `num_tokens` initial tokens (-1: replicas_to_aggregate).
  SyncReplicasOptimizerHook(SyncReplicasOptimizer& sync_optimizer, bool is_chief, int num_tokens);

  /// \throws ValueError "SyncReplicasOptimizer.apply_gradient should be called before using
  ///   the hook." if ApplyGradients was not called.
  void Begin() override;
  /// \throws RuntimeError "Init operations did not make model ready for
  ///   SyncReplicasOptimizer local_init" naming the unset variables.
  void AfterCreateSession(SessionInterface& session, Coordinator* coord) override;

 private:
  SyncReplicasOptimizer& sync_optimizer_;
  const bool is_chief_;
  const int num_tokens_;
  Operation* local_init_op_ = nullptr;
  Operation* init_tokens_op_ = nullptr;
  std::shared_ptr<QueueRunner> q_runner_;
};

}  // namespace mts

#endif  // MTS_SRC_07_DISTRIBUTED_SYNC_REPLICAS_SYNC_REPLICAS_OPTIMIZER_HOOK_H_
