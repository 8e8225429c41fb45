// Reference solution of the ClipByValue exercise.
#include "chapters/01_session/exercises/clip_by_value/clip_by_value.h"
#include "src/01_session/tensor_types.h"

namespace mts {

void ClipByValueShape(ShapeContext& ctx) {
  const Output& t = ctx.inputs[0];
  if (!IsNumeric(t.dtype())) {
    throw TypeError("'" + ctx.op_name + "' needs a numeric tensor, got " + DataTypeName(t.dtype()));
  }
  for (int i = 1; i <= 2; ++i) {
    const Output& bound = ctx.inputs[i];
    if (bound.dtype() != t.dtype()) {
      throw TypeError("'" + ctx.op_name + "': bound '" + bound.name() + "' is " +
                      DataTypeName(bound.dtype()) + " but the tensor is " +
                      DataTypeName(t.dtype()));
    }
    if (bound.shape().has_rank() && bound.shape().rank() != 0) {
      throw ValueError("'" + ctx.op_name + "': bound '" + bound.name() +
                       "' must be a scalar, got shape " + bound.shape().ToString());
    }
  }
  ctx.AddOutput(t.dtype(), t.shape());
}

void ClipByValueKernel(OpKernelContext& ctx) {
  const Tensor& t = ctx.input(0);
  // The shape function could not check a bound of unknown rank; the values can be checked.
  for (int i = 1; i <= 2; ++i) {
    if (ctx.input(i).shape().rank() != 0) {
      throw InvalidArgumentError("bound '" + ctx.op().input(i).name() +
                                     "' must be a scalar, got shape " +
                                     ctx.input(i).shape().ToString(),
                                 ctx.op().name());
    }
  }
  Tensor& out = ctx.allocate_output(0, t.shape());
  DispatchDataType(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      const T lo = ctx.input(1).scalar<T>();
      const T hi = ctx.input(2).scalar<T>();
      if (lo > hi) {
        throw InvalidArgumentError("clip_min must not exceed clip_max", ctx.op().name());
      }
      out.flat<T>() = t.flat<T>().max(lo).min(hi);
    }
  });
}

}  // namespace mts
