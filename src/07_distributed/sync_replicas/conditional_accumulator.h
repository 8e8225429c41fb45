// conditional_accumulator.h: a gradient accumulator that averages the gradients of the
// replicas and refuses stale ones.
//
//   07_distributed/sync_replicas   SyncReplicasOptimizer: one accumulator per variable
//     ConditionalAccumulator       <-- this file: the resource and its ops
//     SharedResource               where the ops run (the session, or the variable's ps)
//
// Lifecycle of one aggregation round, as TensorFlow's accumulator has it:
//   1. ApplyGrad(local_step, grad) adds `grad` if local_step >= the accumulator's global
//      step; a gradient computed before the last aggregation (stale) is dropped quietly.
//   2. TakeGrad(n) waits until n gradients were added, returns their mean, starts a new
//      round (count 0) and advances the accumulator's global step by one.
//   3. SetGlobalStep(step) moves the global step (the chief does it at start, so a restarted
//      chief drops the gradients of its previous life).
// The ops may run from any thread, and from any worker when the accumulator lives on a ps.
//
// Example:
//   ConditionalAccumulator accum(DataType::kFloat, TensorShape{}, "w/grad_accum");
//   Operation* apply = accum.ApplyGrad(grad, local_step);
//   Output mean = accum.TakeGrad(2);
//
// TensorFlow: tf.ConditionalAccumulator (tensorflow/python/ops/data_flow_ops.py) and its
// kernels (tensorflow/core/kernels/conditional_accumulator_base.h).
#ifndef MTS_SRC_07_DISTRIBUTED_SYNC_REPLICAS_CONDITIONAL_ACCUMULATOR_H_
#define MTS_SRC_07_DISTRIBUTED_SYNC_REPLICAS_CONDITIONAL_ACCUMULATOR_H_

#include <cstdint>
#include <memory>
#include <string>

#include "src/01_session/graph.h"
#include "src/07_distributed/sync_replicas/shared_resource.h"

namespace mts {

/// The state of one accumulator: the running sum, how many gradients it holds, its step.
class ConditionalAccumulatorResource : public SharedResource {
 public:
  /// An empty accumulator `name` of gradients of `dtype` (kFloat or kDouble) and `shape`
  /// (an unknown shape takes the first gradient's), at global step 0.
  /// \throws InvalidArgumentError for another dtype.
  ConditionalAccumulatorResource(std::string name, DataType dtype, TensorShape shape);

  /// The resource of a ConditionalAccumulator op, in a session that keeps it.
  static std::shared_ptr<ResourceBase> Create(const Operation& owner);
  /// The resource a ps makes for the accumulator named `name` (attributes dtype, shape).
  static std::shared_ptr<SharedResource> CreateShared(const std::string& name,
                                                      const AttrMap& attrs);

  /// Runs AccumulatorApplyGradient, AccumulatorTakeGradient, AccumulatorSetGlobalStep or
  /// AccumulatorNumAccumulated (see SharedResource::RunOp).
  std::optional<std::vector<Tensor>> RunOp(const std::string& op_type, const std::string& op_name,
                                           const std::vector<Tensor>& inputs, const AttrMap& attrs,
                                           const WaitLimit& wait) override;

  /// Adds `grad` if `local_step` is not behind the global step; returns whether it did.
  /// \throws InvalidArgumentError if `grad` has the wrong dtype or shape.
  bool ApplyGrad(int64_t local_step, const Tensor& grad, const std::string& op_name);
  /// Waits for `num_required` gradients and returns their mean (see the file comment).
  /// \returns std::nullopt if `wait.max_wait_secs` passed first.
  /// \throws InvalidArgumentError if num_required < 1.
  /// \throws CancelledError if the wait was cancelled; nothing changed.
  std::optional<Tensor> TakeGrad(int32_t num_required, const WaitLimit& wait,
                                 const std::string& op_name);
  /// Sets the global step (a smaller one is logged, as TensorFlow does, and set anyway).
  void SetGlobalStep(int64_t step);
  /// How many gradients the current round holds.
  int32_t num_accumulated();
  /// The accumulator's global step.
  int64_t global_step();
  /// How many stale gradients were dropped since the accumulator was made.
  int64_t num_dropped();

 private:
  const std::string name_;
  const DataType dtype_;
  const TensorShape shape_;
  Tensor sum_;               // Guarded by mu_; unset at the start of a round.
  int32_t counter_ = 0;      // Guarded by mu_.
  int64_t global_step_ = 0;  // Guarded by mu_.
  int64_t num_dropped_ = 0;  // Guarded by mu_.
};

/// A handle to a ConditionalAccumulator op; its methods add the ops that use it.
class ConditionalAccumulator {
 public:
  /// Adds the accumulator op for gradients of `dtype` and `shape`, known to every task as
  /// `shared_name` (default: the op's name).
  ConditionalAccumulator(DataType dtype, const TensorShape& shape, const std::string& shared_name,
                         const std::string& name = "ConditionalAccumulator");

  /// An op adding `grad` unless `local_step` (int64 scalar) is behind the global step.
  Operation* ApplyGrad(const Output& grad, const Output& local_step,
                       const std::string& name = "") const;
  /// The mean of `num_required` gradients, waiting for them (a new round starts). A wait
  /// longer than `wait_warning_secs` (<= 0: never) logs `wait_warning`.
  Output TakeGrad(int32_t num_required, double wait_warning_secs = -1,
                  const std::string& wait_warning = "", const std::string& name = "") const;
  /// An op setting the global step to `new_global_step` (int64 scalar).
  Operation* SetGlobalStep(const Output& new_global_step, const std::string& name = "") const;
  /// An int32 scalar: the gradients the current round holds.
  Output NumAccumulated(const std::string& name = "") const;

  /// The ConditionalAccumulator op.
  Operation* op() const { return op_; }
  /// The name every task knows it by.
  const std::string& shared_name() const;

 private:
  Operation* op_;
};

}  // namespace mts

#endif  // MTS_SRC_07_DISTRIBUTED_SYNC_REPLICAS_CONDITIONAL_ACCUMULATOR_H_
