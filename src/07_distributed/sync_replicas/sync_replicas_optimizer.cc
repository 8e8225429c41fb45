#include "src/07_distributed/sync_replicas/sync_replicas_optimizer.h"

#include <algorithm>
#include <utility>

#include "src/01_session/array_ops.h"
#include "src/01_session/graph.h"
#include "src/04_coordinated/queue/fifo_queue.h"
#include "src/07_distributed/replica_device_setter.h"
#include "src/07_distributed/sync_replicas/shared_resource.h"
#include "src/07_distributed/sync_replicas/sync_replicas_optimizer_hook.h"
#include "src/platform/errors.h"
#include "src/platform/logging.h"

namespace mts {

SyncReplicasOptimizer::SyncReplicasOptimizer(Optimizer& opt, int replicas_to_aggregate,
                                             int total_num_replicas, SyncReplicasOptions options)
    : opt_(opt),
      replicas_to_aggregate_(replicas_to_aggregate),
      total_num_replicas_(total_num_replicas > 0 ? total_num_replicas : replicas_to_aggregate),
      tokens_per_step_(std::max(total_num_replicas_, replicas_to_aggregate)),
      options_(std::move(options)) {
  if (replicas_to_aggregate < 1) {
    throw ValueError("SyncReplicasOptimizer needs replicas_to_aggregate >= 1, got " +
                     std::to_string(replicas_to_aggregate));
  }
  MTS_LOG(INFO) << "SyncReplicasV2: replicas_to_aggregate=" << replicas_to_aggregate_
                << "; total_num_replicas=" << total_num_replicas_;
}

SyncReplicasOptimizer::~SyncReplicasOptimizer() = default;

std::vector<GradAndVar> SyncReplicasOptimizer::ComputeGradients(
    const Output& loss, const std::vector<Variable>& var_list) {
  return opt_.ComputeGradients(loss, var_list);
}

Operation* SyncReplicasOptimizer::Minimize(const Output& loss, std::optional<Variable> global_step,
                                           const std::vector<Variable>& var_list,
                                           const std::string& name) {
  return ApplyGradients(ComputeGradients(loss, var_list), std::move(global_step), name);
}

std::string SyncReplicasOptimizer::TokenWaitWarning() const {
  return "a token in sync_token_q. The chief puts " + std::to_string(tokens_per_step_) +
         " there after each update, from the queue runner that the hook of "
         "MakeSessionRunHook(is_chief=true) starts, once " +
         std::to_string(replicas_to_aggregate_) +
         " fresh gradients have arrived: check that the chief runs with that hook and is "
         "alive, and that enough workers run the train op";
}

std::string SyncReplicasOptimizer::GradientWaitWarning() const {
  return std::to_string(replicas_to_aggregate_) +
         " gradients (replicas_to_aggregate) to average. Workers add them by running the "
         "train op with the hook of MakeSessionRunHook(is_chief=false); a gradient computed "
         "before the last update is stale and dropped: check that enough workers are "
         "training";
}

// [mts:sync-accumulators]
std::vector<GradAndVar> SyncReplicasOptimizer::BuildAccumulators(
    const std::vector<GradAndVar>& grads_and_vars, std::vector<Operation*>& apply_ops) {
  std::vector<GradAndVar> aggregated;
  NameScope scope(options_.name);
  for (const auto& [grad, var] : grads_and_vars) {
    if (grad.op() == nullptr) {  // No gradient: passed through, as TensorFlow does.
      aggregated.emplace_back(grad, var);
      continue;
    }
    ConditionalAccumulator accum(grad.dtype(), var.shape(), var.name() + "/grad_accum");
    ColocateWithVariable(*accum.op(), *var.op());  // On the variable's ps task.
    apply_ops.push_back(accum.ApplyGrad(grad, local_step_.value()));
    aggregated.emplace_back(
        accum.TakeGrad(replicas_to_aggregate_, options_.wait_warning_secs, GradientWaitWarning()),
        var);
    accumulators_.push_back(accum);
  }
  return aggregated;
}
// [mts:sync-accumulators-end]

// [mts:sync-step]
Operation* SyncReplicasOptimizer::BuildSyncStep(const std::vector<GradAndVar>& aggregated,
                                                const std::vector<Operation*>& apply_ops,
                                                const std::string& name) {
  Graph& graph = *global_step_->graph();
  NameScope root(graph, "");
  Operation* update_op = opt_.ApplyGradients(aggregated, *global_step_);
  token_queue_.emplace("sync_token_q");
  ColocateWithVariable(*token_queue_->op(), *global_step_->op());
  // The chief's queue runner needs a queue of its own to close; nothing is ever put in it.
  Queue dummy_queue = FIFOQueue(1, {DataType::kInt32}, {TensorShape{}}, "dummy_queue");
  Output token;
  {
    ControlDependencies after_gradients(apply_ops);  // 1. add the gradients first
    token = token_queue_->DequeueToken(options_.wait_warning_secs, TokenWaitWarning());
  }
  Operation* train_op = local_step_.Assign(token, name.empty() ? "sync_rep_train" : name).op();
  // 2. The tokens hold the step after the increment: the wrapped optimizer's train op is
  // the global step's AssignAdd, which outputs the new value once the updates are done.
  Operation* sync_op =
      token_queue_->EnqueueTokens(update_op->output(0), tokens_per_step_, "sync_op");
  std::vector<Operation*> cancels{dummy_queue.Close(true)};
  for (const ConditionalAccumulator& accum : accumulators_)
    cancels.push_back(CancelWaits(accum.op()));
  cancels.push_back(CancelWaits(token_queue_->op()));
  chief_queue_runner_ = std::make_shared<QueueRunner>(
      dummy_queue, std::vector<Operation*>{sync_op}, nullptr,
      Group(cancels, "sync_replicas_cancel"),
      std::vector<ErrorCode>{ErrorCode::kOutOfRange, ErrorCode::kCancelled});
  return train_op;
}
// [mts:sync-step-end]

Operation* SyncReplicasOptimizer::ApplyGradients(const std::vector<GradAndVar>& grads_and_vars,
                                                 std::optional<Variable> global_step,
                                                 const std::string& name) {
  if (grads_and_vars.empty()) throw ValueError("Must supply at least one variable");
  if (!global_step) throw ValueError("Global step is required to check staleness");
  if (global_step->dtype() != DataType::kInt64) {
    throw ValueError("SyncReplicasOptimizer needs an int64 global step, got " +
                     std::string(DataTypeName(global_step->dtype())));
  }
  global_step_ = global_step;
  // A local variable: it stays on the worker, outside the ReplicaDeviceSetter's placement.
  local_step_ = LocalVariable(Tensor::Scalar(int64_t{0}), "sync_rep_local_step");
  local_step_init_op_ = local_step_.Assign(global_step->value(), "sync_rep_local_step_init").op();
  ready_for_local_init_op_ =
      ReportUninitializedVariables(GlobalVariables(), "ready_for_local_init_op");
  std::vector<Operation*> apply_ops;
  const std::vector<GradAndVar> aggregated = BuildAccumulators(grads_and_vars, apply_ops);
  Operation* train_op = BuildSyncStep(aggregated, apply_ops, name);
  std::vector<Operation*> chief_init{local_step_init_op_};
  for (const ConditionalAccumulator& accum : accumulators_) {
    chief_init.push_back(accum.SetGlobalStep(global_step->value(), "SetGlobalStep"));
  }
  chief_init_op_ = Group(chief_init, "sync_replicas_chief_init");
  gradients_applied_ = true;
  return train_op;
}

std::shared_ptr<QueueRunner> SyncReplicasOptimizer::GetChiefQueueRunner() const {
  if (!gradients_applied_) throw ValueError("Should be called after apply_gradients().");
  return chief_queue_runner_;
}

Operation* SyncReplicasOptimizer::GetInitTokensOp(int num_tokens) {
  if (!gradients_applied_) {
    throw ValueError("get_init_tokens_op() should be called after apply_gradients().");
  }
  const int tokens_needed = replicas_to_aggregate_ - total_num_replicas_;
  if (num_tokens == -1) {
    num_tokens = replicas_to_aggregate_;
  } else if (num_tokens < tokens_needed) {
    throw ValueError("Too few tokens to finish the first step: " + std::to_string(num_tokens) +
                     " (given) vs " + std::to_string(tokens_needed) + " (needed)");
  }
  NameScope root(*global_step_->graph(), "");
  if (num_tokens <= 0) return NoOp("no_init_tokens");
  return token_queue_->EnqueueTokens(global_step_->value(), num_tokens, "init_tokens");
}

std::shared_ptr<SessionRunHook> SyncReplicasOptimizer::MakeSessionRunHook(bool is_chief,
                                                                          int num_tokens) {
  return std::make_shared<SyncReplicasOptimizerHook>(*this, is_chief, num_tokens);
}

Variable SyncReplicasOptimizer::GetSlot(const Variable& var, const std::string& slot_name) const {
  return opt_.GetSlot(var, slot_name);
}

std::vector<std::string> SyncReplicasOptimizer::GetSlotNames() const { return opt_.GetSlotNames(); }

}  // namespace mts
