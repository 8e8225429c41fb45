// nn_grad.cc: the gradient functions of the activations, with one fused kernel each.
//
//   Session  <-- runs the gradient ops Gradients() (gradients.h) builds from these
//
// Each activation's derivative is cheapest written in terms of its *output* y, which the
// forward pass already computed: relu' = (y > 0), sigmoid' = y (1 - y), tanh' = 1 - y^2, and
// for softmax the Jacobian-vector product y * (g - sum(g * y)) along the last axis. One
// kernel per activation computes grad * derivative in a single Eigen expression.
//
// TensorFlow: tensorflow/python/ops/nn_grad.py (ReluGrad, SigmoidGrad, TanhGrad, softmax).
#include "src/01_session/learning/gradients.h"
#include "src/01_session/learning/nn_ops.h"
#include "src/01_session/op_kernel_context.h"
#include "src/01_session/tensor_types.h"

namespace mts {

namespace {

// Inputs (y, g): the activation's output and the gradient flowing into it.
struct ReluGradFn {
  static constexpr const char* kType = "ReluGrad";
  template <typename Y, typename G>
  auto operator()(const Y& y, const G& g) const {
    return (y > typename Y::Scalar(0)).select(g, typename Y::Scalar(0));
  }
};
struct SigmoidGradFn {
  static constexpr const char* kType = "SigmoidGrad";
  template <typename Y, typename G>
  auto operator()(const Y& y, const G& g) const {
    return g * y * (typename Y::Scalar(1) - y);
  }
};
struct TanhGradFn {
  static constexpr const char* kType = "TanhGrad";
  template <typename Y, typename G>
  auto operator()(const Y& y, const G& g) const {
    return g * (typename Y::Scalar(1) - y.square());
  }
};

void SameAsFirst(ShapeContext& ctx) { ctx.AddOutput(ctx.inputs[0].dtype(), ctx.inputs[0].shape()); }

template <typename F>
void ActivationGradKernel(OpKernelContext& ctx) {
  const Tensor& y = ctx.input(0);
  const Tensor& g = ctx.input(1);
  Tensor& out = ctx.forward_input_or_allocate_output({1, 0}, 0, y.shape());
  DispatchDataType(y.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) out.flat<T>() = F()(y.flat<T>(), g.flat<T>());
  });
}

// Softmax along the last axis: rows of length C.
void SoftmaxGradKernel(OpKernelContext& ctx) {
  const Tensor& y = ctx.input(0);
  const Tensor& g = ctx.input(1);
  Tensor& out = ctx.allocate_output(0, y.shape());
  const int rank = y.shape().rank();
  const int64_t cols = rank == 0 ? 1 : y.shape().dim(rank - 1);
  const int64_t rows = cols == 0 ? 0 : y.num_elements() / cols;
  DispatchDataType(y.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      using RowMajor = Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
      Eigen::Map<const RowMajor> ym(y.data<T>(), rows, cols), gm(g.data<T>(), rows, cols);
      Eigen::Map<RowMajor> om(out.data<T>(), rows, cols);
      om = ym * (gm.colwise() - (gm * ym).rowwise().sum());
    }
  });
}

template <typename F>
OpDef GradDef() {
  return {F::kType, SameAsFirst, ActivationGradKernel<F>};
}
const OpRegistration relu_grad_op(GradDef<ReluGradFn>());
const OpRegistration sigmoid_grad_op(GradDef<SigmoidGradFn>());
const OpRegistration tanh_grad_op(GradDef<TanhGradFn>());
const OpRegistration softmax_grad_op({"SoftmaxGrad", SameAsFirst, SoftmaxGradKernel});

// Second derivatives are not needed by any optimizer here.
const NotDifferentiable relu_grad_nd("ReluGrad");
const NotDifferentiable sigmoid_grad_nd("SigmoidGrad");
const NotDifferentiable tanh_grad_nd("TanhGrad");
const NotDifferentiable softmax_grad_nd("SoftmaxGrad");

// The gradient of activation `type`: its fused grad op on (y, g).
template <const char* kGradType>
std::vector<Output> ActivationGrad(const Operation& op, const std::vector<Output>& grads) {
  Output y = op.output(0);
  return {op.graph()->AddOperation(kGradType, kGradType, {y, grads[0]})->output(0)};
}
constexpr char kReluGrad[] = "ReluGrad";
constexpr char kSigmoidGrad[] = "SigmoidGrad";
constexpr char kTanhGrad[] = "TanhGrad";
constexpr char kSoftmaxGrad[] = "SoftmaxGrad";
const GradientRegistration relu_grad("Relu", ActivationGrad<kReluGrad>);
const GradientRegistration sigmoid_grad("Sigmoid", ActivationGrad<kSigmoidGrad>);
const GradientRegistration tanh_grad("Tanh", ActivationGrad<kTanhGrad>);
const GradientRegistration softmax_grad("Softmax", ActivationGrad<kSoftmaxGrad>);

}  // namespace

}  // namespace mts
