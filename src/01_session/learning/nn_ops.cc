#include "src/01_session/learning/nn_ops.h"

#include "src/01_session/op_kernel_context.h"
#include "src/01_session/learning/op_util.h"
#include "src/01_session/tensor_types.h"

namespace mts {

namespace {

using internal::CheckDtype;
using internal::DtypeClass;
using internal::OpLabel;

// ---- Relu, Sigmoid, Tanh: one Eigen expression each -------------------------------------------

struct ReluFn {
  static constexpr const char* kType = "Relu";
  template <typename X>
  auto operator()(const X& x) const { return x.max(typename X::Scalar(0)); }
};
struct SigmoidFn {
  static constexpr const char* kType = "Sigmoid";
  // For very negative x, e^-x overflows to inf and the inverse is exactly 0, as it should be.
  template <typename X>
  auto operator()(const X& x) const { return (typename X::Scalar(1) + (-x).exp()).inverse(); }
};
struct TanhFn {
  static constexpr const char* kType = "Tanh";
  template <typename X>
  auto operator()(const X& x) const { return x.tanh(); }
};

template <typename F>
void ActivationShape(ShapeContext& ctx) {
  CheckDtype(ctx.op_name, F::kType, ctx.inputs[0].dtype(), DtypeClass::kFloating);
  ctx.AddOutput(ctx.inputs[0].dtype(), ctx.inputs[0].shape());
}

template <typename F>
void ActivationKernel(OpKernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.forward_input_or_allocate_output({0}, 0, x.shape());
  DispatchDataType(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) out.flat<T>() = F()(x.flat<T>());
  });
}

template <typename F>
OpDef ActivationDef() {
  return {F::kType, ActivationShape<F>, ActivationKernel<F>};
}
const OpRegistration relu_op(ActivationDef<ReluFn>());
const OpRegistration sigmoid_op(ActivationDef<SigmoidFn>());
const OpRegistration tanh_op(ActivationDef<TanhFn>());

// ---- Softmax ----------------------------------------------------------------------------------

void SoftmaxShape(ShapeContext& ctx) {
  const Output& logits = ctx.inputs[0];
  CheckDtype(ctx.op_name, "Softmax", logits.dtype(), DtypeClass::kFloating);
  if (logits.shape().has_rank() && logits.shape().rank() == 0) {
    throw ValueError("Shape must be at least rank 1 but is rank 0 for " +
                     OpLabel(ctx.op_name, "Softmax"));
  }
  ctx.AddOutput(logits.dtype(), logits.shape());
}

// [mts:softmax-kernel]
// Any rank is a matrix of rows along the last axis. Each row's max is subtracted before
// exponentiating (softmax is unchanged by a shift, and e^0 = 1 is the largest term, so
// nothing overflows); then each row is divided by its sum.
template <typename T>
void SoftmaxRows(const Tensor& logits, Tensor& out) {
  using Rows = Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const int64_t cols = logits.shape().dim(logits.shape().rank() - 1);
  const int64_t rows = logits.num_elements() / cols;
  Eigen::Map<const Rows> x(logits.data<T>(), rows, cols);
  Eigen::Map<Rows> y(out.data<T>(), rows, cols);
  // Row maxima and sums go into columns first: each is read by every element of its row.
  const Eigen::Array<T, Eigen::Dynamic, 1> row_max = x.rowwise().maxCoeff();
  y = (x.colwise() - row_max).exp();
  const Eigen::Array<T, Eigen::Dynamic, 1> row_sum = y.rowwise().sum();
  y.colwise() /= row_sum;
}
// [mts:softmax-kernel-end]

void SoftmaxKernel(OpKernelContext& ctx) {
  const Tensor& logits = ctx.input(0);
  if (logits.shape().rank() == 0) {
    throw InvalidArgumentError("logits must have at least one dimension, got a scalar",
                               ctx.op().name());
  }
  Tensor& out = ctx.allocate_output(0, logits.shape());
  if (logits.num_elements() == 0) return;  // No rows, or empty rows: nothing to normalise.
  DispatchDataType(logits.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) SoftmaxRows<T>(logits, out);
  });
}
const OpRegistration softmax_op({"Softmax", SoftmaxShape, SoftmaxKernel});

Output Activation(const char* type, const Output& x, const std::string& name) {
  return GraphOf({x}, name).AddOperation(type, name, {x})->output(0);
}

}  // namespace

Output Relu(const Output& x, const std::string& name) { return Activation("Relu", x, name); }
Output Sigmoid(const Output& x, const std::string& name) {
  return Activation("Sigmoid", x, name);
}
Output Tanh(const Output& x, const std::string& name) { return Activation("Tanh", x, name); }
Output Softmax(const Output& logits, const std::string& name) {
  return Activation("Softmax", logits, name);
}

}  // namespace mts
