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
  /// output slots, `resource` at its per-session state (or null).
  OpKernelContext(const Operation& op, const Tensor* const* inputs, Tensor* outputs,
                  ResourceBase* resource, ResourceBase* const* ref_resources, Session* session)
      : op_(op),
        inputs_(inputs),
        outputs_(outputs),
        resource_(resource),
        ref_resources_(ref_resources),
        session_(session) {}

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
  const RunDeadline* deadline_ = nullptr;
};

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_OP_KERNEL_CONTEXT_H_
