// tanh_ex_op.cc: the TanhEx op and its gradient registration, given with the exercise (they
// are not part of the task).
#include <cmath>

#include "chapters/01_session/exercises/tanh_gradient/tanh_gradient.h"
#include "src/01_session/learning/gradients.h"
#include "src/01_session/op_kernel_context.h"

namespace mts {

namespace {

void TanhExShape(ShapeContext& ctx) {
  const DataType dtype = ctx.inputs[0].dtype();
  if (!IsFloating(dtype)) {
    throw TypeError("TanhEx '" + ctx.op_name + "' needs a float input, got " +
                    DataTypeName(dtype));
  }
  ctx.AddOutput(dtype, ctx.inputs[0].shape());
}

void TanhExKernel(OpKernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.allocate_output(0, x.shape());
  DispatchDataType(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) y.flat<T>() = x.flat<T>().tanh();
  });
}

const OpRegistration tanh_ex_op({"TanhEx", TanhExShape, TanhExKernel});

// Gradients() calls your TanhExGrad for every TanhEx op it must pass through.
const GradientRegistration tanh_ex_grad("TanhEx", TanhExGrad);

}  // namespace

Output TanhEx(const Output& x, const std::string& name) {
  return GraphOf({x}, name).AddOperation("TanhEx", name, {x})->output(0);
}

}  // namespace mts
