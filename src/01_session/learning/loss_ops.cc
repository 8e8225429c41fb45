#include "src/01_session/learning/loss_ops.h"

#include "src/01_session/learning/gradients.h"
#include "src/01_session/op_kernel_context.h"
#include "src/01_session/tensor_types.h"

namespace mts {

namespace {

void CheckLogits(const std::string& name, const Output& logits) {
  if (!IsFloating(logits.dtype())) {
    throw TypeError("'" + name + "': logits must be float32 or float64, got " +
                    DataTypeName(logits.dtype()));
  }
  if (logits.shape().has_rank() && logits.shape().rank() != 2) {
    throw ValueError("'" + name + "': logits must be rank 2 [batch, classes], got " +
                     logits.shape().ToString());
  }
}

// Outputs: loss [N] and backprop [N, C] (d loss / d logits).
void DenseShape(ShapeContext& ctx) {
  const Output& labels = ctx.inputs[0];
  const Output& logits = ctx.inputs[1];
  CheckLogits(ctx.op_name, logits);
  if (labels.dtype() != logits.dtype()) {
    throw TypeError("'" + ctx.op_name + "': labels and logits must have one dtype");
  }
  const TensorShape shape = logits.shape().MergeWith(labels.shape());
  ctx.AddOutput(logits.dtype(), TensorShape{shape.has_rank() ? shape.dim(0) : -1});
  ctx.AddOutput(logits.dtype(), shape);
}

void SparseShape(ShapeContext& ctx) {
  const Output& labels = ctx.inputs[0];
  const Output& logits = ctx.inputs[1];
  CheckLogits(ctx.op_name, logits);
  if (labels.dtype() != DataType::kInt32 && labels.dtype() != DataType::kInt64) {
    throw TypeError("'" + ctx.op_name + "': labels must be int32 or int64, got " +
                    DataTypeName(labels.dtype()));
  }
  if (labels.shape().has_rank() && labels.shape().rank() != 1) {
    throw ValueError("'" + ctx.op_name + "': labels must be rank 1 [batch], got " +
                     labels.shape().ToString());
  }
  int64_t n = logits.shape().has_rank() ? logits.shape().dim(0) : -1;
  if (n == -1 && labels.shape().has_rank()) n = labels.shape().dim(0);
  ctx.AddOutput(logits.dtype(), TensorShape{n});
  ctx.AddOutput(logits.dtype(), logits.shape().has_rank() ? TensorShape{n, logits.shape().dim(1)}
                                                          : TensorShape{n, -1});
}

// Writes softmax(logits) into backprop and returns, per row, log(sum(exp(logits - max))) and
// the max, so loss terms need no second pass over exp.
// [mts:softmax-cross-entropy]
// The two per-row columns are tensors the kernel allocated (allocate_temp), not Eigen arrays,
// so a training step's loss makes no heap allocation.
template <typename T>
void SoftmaxAndLogSumExp(const Tensor& logits, Tensor& backprop,
                         typename TTypes<T>::Flat log_sum, typename TTypes<T>::Flat row_max) {
  auto x = logits.matrix<T>().array();
  row_max = x.rowwise().maxCoeff();
  auto p = backprop.matrix<T>().array();
  p = (x.colwise() - row_max).exp();
  log_sum = p.rowwise().sum();  // The row sums, until the last line takes their log.
  p.colwise() /= log_sum;
  log_sum = log_sum.log();
}
// [mts:softmax-cross-entropy-end]

void DenseKernel(OpKernelContext& ctx) {
  const Tensor& labels = ctx.input(0);
  const Tensor& logits = ctx.input(1);
  if (labels.shape() != logits.shape()) {
    throw InvalidArgumentError("logits and labels must be same size: logits_size=" +
                                   logits.shape().ToString() +
                                   " labels_size=" + labels.shape().ToString(),
                               ctx.op().name());
  }
  Tensor& loss = ctx.allocate_output(0, TensorShape{logits.shape().dim(0)});
  Tensor& backprop = ctx.allocate_output(1, logits.shape());
  DispatchDataType(logits.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      const TensorShape rows{logits.shape().dim(0)};
      Tensor log_sum_t = ctx.allocate_temp(logits.dtype(), rows);
      Tensor row_max_t = ctx.allocate_temp(logits.dtype(), rows);
      auto log_sum = log_sum_t.flat<T>();
      auto row_max = row_max_t.flat<T>();
      SoftmaxAndLogSumExp<T>(logits, backprop, log_sum, row_max);
      auto y = labels.matrix<T>().array();
      auto x = logits.matrix<T>().array();
      // loss = sum_j y_j (log_sum + max - x_j); d loss / d x = softmax - y (rows of y sum to 1).
      loss.flat<T>() = (y * ((-x).colwise() + (log_sum + row_max))).rowwise().sum();
      backprop.matrix<T>().array() -= y;
    }
  });
}

void SparseKernel(OpKernelContext& ctx) {
  const Tensor& labels = ctx.input(0);
  const Tensor& logits = ctx.input(1);
  const int64_t n = logits.shape().dim(0), classes = logits.shape().dim(1);
  if (labels.num_elements() != n) {
    throw InvalidArgumentError("labels has " + std::to_string(labels.num_elements()) +
                                   " entries but logits has " + std::to_string(n) + " rows",
                               ctx.op().name());
  }
  Tensor& loss = ctx.allocate_output(0, TensorShape{n});
  Tensor& backprop = ctx.allocate_output(1, logits.shape());
  DispatchDataType(logits.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      const TensorShape rows{logits.shape().dim(0)};
      Tensor log_sum_t = ctx.allocate_temp(logits.dtype(), rows);
      Tensor row_max_t = ctx.allocate_temp(logits.dtype(), rows);
      auto log_sum = log_sum_t.flat<T>();
      auto row_max = row_max_t.flat<T>();
      SoftmaxAndLogSumExp<T>(logits, backprop, log_sum, row_max);
      auto x = logits.matrix<T>();
      auto p = backprop.matrix<T>();
      for (int64_t i = 0; i < n; ++i) {
        const int64_t label = labels.dtype() == DataType::kInt64
                                  ? labels.data<int64_t>()[i]
                                  : static_cast<int64_t>(labels.data<int32_t>()[i]);
        if (label < 0 || label >= classes) {
          throw InvalidArgumentError("Received a label value of " + std::to_string(label) +
                                         " which is outside the valid range of [0, " +
                                         std::to_string(classes) + ").",
                                     ctx.op().name());
        }
        loss.flat<T>()(i) = log_sum(i) + row_max(i) - x(i, label);
        p(i, label) -= T(1);
      }
    }
  });
}

OpDef TwoOutputs(const char* type, ShapeFn shape, KernelFn kernel) { return {type, shape, kernel}; }
const OpRegistration dense_op(
    TwoOutputs("SoftmaxCrossEntropyWithLogits", DenseShape, DenseKernel));
const OpRegistration sparse_op(
    TwoOutputs("SparseSoftmaxCrossEntropyWithLogits", SparseShape, SparseKernel));

// ---- Gradient: d loss_i scales row i of the stored backprop ----------------------------------

void ScaleRowsShape(ShapeContext& ctx) {
  ctx.AddOutput(ctx.inputs[1].dtype(), ctx.inputs[1].shape());
}
void ScaleRowsKernel(OpKernelContext& ctx) {
  const Tensor& scale = ctx.input(0);
  const Tensor& rows = ctx.input(1);
  Tensor& out = ctx.forward_input_or_allocate_output({1}, 0, rows.shape());  // Elementwise in rows.
  DispatchDataType(rows.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      out.matrix<T>().array() = rows.matrix<T>().array().colwise() * scale.flat<T>();
    }
  });
}
const OpRegistration scale_rows_op({"ScaleRows", ScaleRowsShape, ScaleRowsKernel});
const NotDifferentiable scale_rows_nd("ScaleRows");

std::vector<Output> CrossEntropyGrad(const Operation& op, const std::vector<Output>& grads) {
  if (grads[0].op() == nullptr) return {Output(), Output()};
  Output backprop = op.output(1);
  Output logits_grad =
      op.graph()->AddOperation("ScaleRows", "ScaleRows", {grads[0], backprop})->output(0);
  return {Output(), logits_grad};  // No gradient for the labels.
}
const GradientRegistration dense_grad("SoftmaxCrossEntropyWithLogits", CrossEntropyGrad);
const GradientRegistration sparse_grad("SparseSoftmaxCrossEntropyWithLogits", CrossEntropyGrad);

Output AddLoss(const char* type, const Output& labels, const Output& logits,
               const std::string& name) {
  return GraphOf({labels, logits}, name).AddOperation(type, name, {labels, logits})->output(0);
}

}  // namespace

Output SoftmaxCrossEntropyWithLogits(const Output& labels, const Output& logits,
                                     const std::string& name) {
  return AddLoss("SoftmaxCrossEntropyWithLogits", labels, logits, name);
}

Output SparseSoftmaxCrossEntropyWithLogits(const Output& labels, const Output& logits,
                                           const std::string& name) {
  return AddLoss("SparseSoftmaxCrossEntropyWithLogits", labels, logits, name);
}

}  // namespace mts
