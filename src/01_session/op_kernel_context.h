// op_kernel_context.h: what a kernel sees while it runs: its op, inputs, outputs, resource.
//
//   Session  <-- the executor makes one OpKernelContext per op per run, on the stack
//
// A kernel reads `input(i)`, writes each output with `set_output(i, tensor)`, and reaches
// kept state through `resource<T>()`. Errors are thrown as OpErrors; `op().name()` belongs
// in the message, and the executor adds the "[[node ...]]" annotation.
//
// TensorFlow: tensorflow::OpKernelContext (tensorflow/core/framework/op_kernel.h).
#ifndef MTS_SRC_01_SESSION_OP_KERNEL_CONTEXT_H_
#define MTS_SRC_01_SESSION_OP_KERNEL_CONTEXT_H_

#include <cstdint>
#include <initializer_list>

#include "src/01_session/op_def.h"
#include "src/01_session/operation.h"
#include "src/01_session/resource_mgr.h"
#include "src/01_session/tensor.h"
#include "src/platform/clock.h"

namespace mts {

class Session;

/// When a run must be over (RunOptions::timeout_in_ms): a time on the session's clock.
/// Blocking kernels wait no later than this, then raise DeadlineExceededError.
struct RunDeadline {
  Clock* clock = nullptr;  ///< The session's clock, which `micros` is read on.
  int64_t micros = 0;      ///< The deadline, in clock->NowMicros() time.
};

/// TensorFlow's error for a run past its deadline, word for word.
inline constexpr const char* kRunTimedOutMessage = "Timed out waiting for notification";

/// The run-time view of one op execution.
class OpKernelContext {
 public:
  /// Made by the executor: `inputs` points at the op's input values, `outputs` at its
  /// output slots, `resource` at its per-session state (or null). Bit i of
  /// `forwardable_inputs` says input i dies at this op (ExecutionPlan's PlanNode).
  OpKernelContext(const Operation& op, const Tensor* const* inputs, Tensor* outputs,
                  ResourceBase* resource, ResourceBase* const* ref_resources, Session* session,
                  uint64_t forwardable_inputs = 0)
      : op_(op),
        inputs_(inputs),
        outputs_(outputs),
        resource_(resource),
        ref_resources_(ref_resources),
        session_(session),
        forwardable_inputs_(forwardable_inputs) {}

  /// The op being run.
  const Operation& op() const { return op_; }
  /// Input `i`'s value.
  const Tensor& input(int i) const { return *inputs_[i]; }
  /// Sets output `i`.
  void set_output(int i, Tensor value) { outputs_[i] = std::move(value); }
  /// Allocates output `i` with `shape` and the output's dtype, and returns it to fill.
  Tensor& allocate_output(int i, const TensorShape& shape) {
    outputs_[i] = Tensor(op_.output_dtype(i), shape);
    return outputs_[i];
  }
  // [mts:forward-input]
  /// Output `i` with `shape`, in the buffer of the first input in `candidates` that can lend
  /// it, else newly allocated (TensorFlow's forward_input_or_allocate_output). An input can
  /// lend its buffer when it dies at this op (the plan says so), nothing else holds the
  /// buffer (its use count is one: not a variable's value, a fetched or a queued tensor), and
  /// it has the output's dtype and element count. The kernel then reads that input and
  /// writes the output through one buffer, so only a kernel whose element k of the output
  /// depends on element k of the input alone (an elementwise one) may call this.
  Tensor& forward_input_or_allocate_output(std::initializer_list<int> candidates, int i,
                                           const TensorShape& shape) {
    for (int c : candidates) {
      if (c >= 64 || (forwardable_inputs_ >> c & 1) == 0) continue;
      const Tensor& in = *inputs_[c];
      if (in.RefCountIsOne() && in.dtype() == op_.output_dtype(i) &&
          in.dtype() != DataType::kString && in.num_elements() == shape.num_elements()) {
        // A second handle, so the input stays readable while the kernel runs; the executor
        // drops the first right after it.
        outputs_[i] = in.shape() == shape ? in : in.WithShape(shape);
        return outputs_[i];
      }
    }
    return allocate_output(i, shape);
  }
  // [mts:forward-input-end]
  /// A scratch tensor for the kernel's own use while it runs (TensorFlow's allocate_temp).
  /// Its buffer comes from the caching allocator, like an output's, where an Eigen
  /// temporary would be a heap allocation in every step.
  Tensor allocate_temp(DataType dtype, const TensorShape& shape) const {
    return Tensor(dtype, shape);
  }
  /// The op's per-session resource, as its concrete type.
  template <typename T>
  T& resource() const {
    return *static_cast<T*>(resource_);
  }
  /// The resource behind reference input `i` (i < OpDef::num_ref_inputs), as its type.
  template <typename T>
  T& ref_resource(int i) const {
    return *static_cast<T*>(ref_resources_[i]);
  }
  /// The session running this op.
  Session* session() const { return session_; }
  /// The run's deadline, or null when the run has none. A kernel that blocks (a queue op)
  /// waits no later than it.
  const RunDeadline* deadline() const { return deadline_; }
  /// Set by the executor for a run with RunOptions::timeout_in_ms.
  void set_deadline(const RunDeadline* deadline) { deadline_ = deadline; }

 private:
  const Operation& op_;
  const Tensor* const* inputs_;
  Tensor* outputs_;
  ResourceBase* resource_;
  ResourceBase* const* ref_resources_;
  Session* session_;
  uint64_t forwardable_inputs_;
  const RunDeadline* deadline_ = nullptr;
};

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_OP_KERNEL_CONTEXT_H_
