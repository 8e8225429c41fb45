// sync_replicas_optimizer.h: synchronous training with parameter servers: the workers'
// gradients are averaged, then applied once, and no worker runs ahead.
//
//   07_distributed/sync_replicas
//     SyncReplicasOptimizer          <-- this file: builds the ops of one synchronous step
//     SyncReplicasOptimizerHook      starts them (sync_replicas_optimizer_hook.h)
//     ConditionalAccumulator, SyncTokenQueue   the state the workers share (on the ps)
//   01_session/learning Optimizer    the optimizer it wraps, which makes the update
//
// One synchronous step, as TensorFlow's SyncReplicasOptimizer has it:
//   1. Every worker computes its gradients, adds each to its variable's accumulator
//      (stamped with its local step; a stale one is dropped), then waits for a token.
//   2. The chief's queue runner takes the mean of replicas_to_aggregate gradients from each
//      accumulator, applies them with the wrapped optimizer, increments the global step,
//      and puts max(total_num_replicas, replicas_to_aggregate) tokens holding the new step.
//   3. Each worker takes a token, makes it its local step, and starts the next step.
// With replicas_to_aggregate < total_num_replicas the slowest workers are backups: their
// gradients arrive stale and are dropped. Build it once, inside the ReplicaDeviceSetter
// scope, in every task's graph; the chief and the workers differ only by their hook.
//
// Example:
//   SyncReplicasOptimizer sync(sgd, /*replicas_to_aggregate=*/2, /*total_num_replicas=*/3);
//   Operation* train_op = sync.Minimize(loss, global_step);
//   hooks.push_back(sync.MakeSessionRunHook(is_chief));
//
// TensorFlow: tf.train.SyncReplicasOptimizer
// (tensorflow/python/training/sync_replicas_optimizer.py).
#ifndef MTS_SRC_07_DISTRIBUTED_SYNC_REPLICAS_SYNC_REPLICAS_OPTIMIZER_H_
#define MTS_SRC_07_DISTRIBUTED_SYNC_REPLICAS_SYNC_REPLICAS_OPTIMIZER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/01_session/learning/optimizer.h"
#include "src/01_session/variables.h"
#include "src/03_hooked/session_run_hook.h"
#include "src/04_coordinated/queue_runner.h"
#include "src/07_distributed/sync_replicas/conditional_accumulator.h"
#include "src/07_distributed/sync_replicas/sync_token_queue.h"

namespace mts {

/// What TensorFlow's constructor does not ask for.
struct SyncReplicasOptions {
  /// A worker waiting longer than this for its token, or the chief for the gradients,
  /// logs what it waits for and who should provide it; <= 0: never (TensorFlow's silence).
  double wait_warning_secs = 60;
  /// The name scope of the accumulators.
  std::string name = "sync_replicas";
};

/// Wraps an optimizer so that the replicas' gradients are averaged before one update.
class SyncReplicasOptimizer {
 public:
  /// Wraps `opt` (which must outlive this); each update averages `replicas_to_aggregate`
  /// gradients from `total_num_replicas` workers (<= 0: as many as replicas_to_aggregate).
  /// \throws ValueError if replicas_to_aggregate < 1.
  SyncReplicasOptimizer(Optimizer& opt, int replicas_to_aggregate, int total_num_replicas = 0,
                        SyncReplicasOptions options = {});
  ~SyncReplicasOptimizer();
  SyncReplicasOptimizer(const SyncReplicasOptimizer&) = delete;
  SyncReplicasOptimizer& operator=(const SyncReplicasOptimizer&) = delete;

  /// The wrapped optimizer's gradients (they are aggregated by ApplyGradients).
  std::vector<GradAndVar> ComputeGradients(const Output& loss,
                                           const std::vector<Variable>& var_list = {});
  /// Builds the synchronous step (see the file comment) and returns the workers' train
  /// op: add the gradients, then take a token into the local step.
  /// \throws ValueError "Must supply at least one variable" if grads_and_vars is empty, and
  ///   "Global step is required to check staleness" without a global step.
  Operation* ApplyGradients(const std::vector<GradAndVar>& grads_and_vars,
                            std::optional<Variable> global_step, const std::string& name = "");
  /// ComputeGradients then ApplyGradients.
  Operation* Minimize(const Output& loss, std::optional<Variable> global_step,
                      const std::vector<Variable>& var_list = {}, const std::string& name = "");

  /// The chief's queue runner: aggregate, apply, increment the global step, put tokens.
  /// Its cancel op also cancels the session's waits on the shared resources, so a stopping
  /// Coordinator need not wait out its grace period for a take that cannot finish.
  /// \throws ValueError "Should be called after apply_gradients()." before ApplyGradients.
  std::shared_ptr<QueueRunner> GetChiefQueueRunner() const;
  /// An op putting `num_tokens` tokens (-1: replicas_to_aggregate) holding the global step.
  /// \throws ValueError before ApplyGradients, or "Too few tokens to finish the first step"
  ///   if num_tokens < replicas_to_aggregate - total_num_replicas.
  Operation* GetInitTokensOp(int num_tokens = -1);
  /// A hook that, on the chief, runs chief_init_op, puts the initial tokens and starts the
  /// chief's queue runner; on a worker runs local_step_init_op.
  std::shared_ptr<SessionRunHook> MakeSessionRunHook(bool is_chief, int num_tokens = -1);

  /// The local step and every accumulator's step := the global step (run by the chief).
  Operation* chief_init_op() const { return chief_init_op_; }
  /// The local step := the global step (run by a worker).
  Operation* local_step_init_op() const { return local_step_init_op_; }
  /// The names of the global variables not yet set: empty once the chief has initialised.
  const std::optional<Output>& ready_for_local_init_op() const { return ready_for_local_init_op_; }
  /// The worker's local step, "sync_rep_local_step" (a local variable).
  const Variable& local_step() const { return local_step_; }
  /// The token queue.
  const std::optional<SyncTokenQueue>& sync_token_queue() const { return token_queue_; }
  /// The accumulators, one per variable with a gradient, in order.
  const std::vector<ConditionalAccumulator>& accumulators() const { return accumulators_; }
  /// Whether ApplyGradients was called.
  bool gradients_applied() const { return gradients_applied_; }
  /// The wrapped optimizer's slot `slot_name` of `var`.
  Variable GetSlot(const Variable& var, const std::string& slot_name) const;
  /// The wrapped optimizer's slot names.
  std::vector<std::string> GetSlotNames() const;
  /// replicas_to_aggregate.
  int replicas_to_aggregate() const { return replicas_to_aggregate_; }
  /// total_num_replicas.
  int total_num_replicas() const { return total_num_replicas_; }

 private:
  // Step 1 and 3: accumulators and the workers' train op; returns the aggregated grads.
  std::vector<GradAndVar> BuildAccumulators(const std::vector<GradAndVar>& grads_and_vars,
                                            std::vector<Operation*>& apply_ops);
  // Step 2: the update, the token queue, the sync op and the chief's queue runner.
  Operation* BuildSyncStep(const std::vector<GradAndVar>& aggregated,
                           const std::vector<Operation*>& apply_ops, const std::string& name);
  std::string TokenWaitWarning() const;
  std::string GradientWaitWarning() const;

  Optimizer& opt_;
  const int replicas_to_aggregate_;
  const int total_num_replicas_;
  const int tokens_per_step_;
  const SyncReplicasOptions options_;
  bool gradients_applied_ = false;
  std::optional<Variable> global_step_;
  Variable local_step_;
  Operation* local_step_init_op_ = nullptr;
  Operation* chief_init_op_ = nullptr;
  std::optional<Output> ready_for_local_init_op_;
  std::vector<ConditionalAccumulator> accumulators_;
  std::optional<SyncTokenQueue> token_queue_;
  std::shared_ptr<QueueRunner> chief_queue_runner_;
};

}  // namespace mts

#endif  // MTS_SRC_07_DISTRIBUTED_SYNC_REPLICAS_SYNC_REPLICAS_OPTIMIZER_H_
