// tanh_ex_op.cc: the TanhEx and MaximumEx ops and their gradient registrations, given with the
// exercise (they are not part of the task).
#include <cmath>

#include "chapters/01_session/exercises/tanh_gradient/tanh_gradient.h"
#include "src/01_session/learning/gradients.h"
#include "src/01_session/op_kernel_context.h"
#include "src/01_session/tensor_types.h"

namespace mts {

namespace {

void TanhExShape(ShapeContext& ctx) {
  const DataType dtype = ctx.inputs[0].dtype();
  if (!IsFloating(dtype)) {
    throw TypeError("TanhEx '" + ctx.op_name + "' needs a float input, got " + DataTypeName(dtype));
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

void MaximumExShape(ShapeContext& ctx) {
  const Output& x = ctx.inputs[0];
  const Output& y = ctx.inputs[1];
  if (!IsFloating(x.dtype()) || y.dtype() != x.dtype()) {
    throw TypeError("MaximumEx '" + ctx.op_name + "' needs two inputs of one float dtype, got " +
                    DataTypeName(x.dtype()) + " and " + DataTypeName(y.dtype()));
  }
  if (!x.shape().IsCompatibleWith(y.shape())) {
    throw ValueError("MaximumEx '" + ctx.op_name + "' needs inputs of one shape, got " +
                     x.shape().ToString() + " and " + y.shape().ToString());
  }
  ctx.AddOutput(x.dtype(), x.shape().MergeWith(y.shape()));
}

void MaximumExKernel(OpKernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& y = ctx.input(1);
  if (x.shape() != y.shape()) {
    throw InvalidArgumentError("MaximumEx needs inputs of one shape, got " + x.shape().ToString() +
                                   " and " + y.shape().ToString(),
                               ctx.op().name());
  }
  Tensor& out = ctx.allocate_output(0, x.shape());
  DispatchDataType(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) out.flat<T>() = x.flat<T>().cwiseMax(y.flat<T>());
  });
}

const OpRegistration maximum_ex_op({"MaximumEx", MaximumExShape, MaximumExKernel});

// Gradients() calls your functions for every TanhEx and MaximumEx op it must pass through.
const GradientRegistration tanh_ex_grad("TanhEx", TanhExGrad);
const GradientRegistration maximum_ex_grad("MaximumEx", MaximumExGrad);

}  // namespace

Output TanhEx(const Output& x, const std::string& name) {
  return GraphOf({x}, name).AddOperation("TanhEx", name, {x})->output(0);
}

Output MaximumEx(const Output& x, const Output& y, const std::string& name) {
  return GraphOf({x, y}, name).AddOperation("MaximumEx", name, {x, y})->output(0);
}

}  // namespace mts
