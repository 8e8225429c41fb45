// The ClipByValue exercise of chapter 01: the op's shape function and its kernel, so that
// clip_by_value_test passes. The parts to write lie between the `[mts:lab clip_by_value]`
// markers; the comments outside them say what to decide.
#include "chapters/01_session/exercises/clip_by_value/clip_by_value.h"
#include "src/01_session/tensor_types.h"

namespace mts {

// [mts:exercise-todo]
void ClipByValueShape(ShapeContext& ctx) {
  // TODO(student): the header lists the errors. Decide which of them the shape function
  // can raise (what is known while the graph is built?) and which only the kernel can; a
  // check that depends on something unknown at build time has to be made again when the op
  // runs. Its output: ctx.AddOutput(dtype, shape).
  // [mts:lab clip_by_value]
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
  // [mts:lab-end]
}

void ClipByValueKernel(OpKernelContext& ctx) {
  // TODO(student): the clipped tensor, with one Eigen expression over flat<T>()
  // (DispatchDataType turns the dtype into a C++ type), after the checks only the values
  // allow. An error raised here should name ctx.op().name(): why does that matter more than
  // at build time?
  // [mts:lab clip_by_value]
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
  // [mts:lab-end]
}
// [mts:exercise-todo-end]

}  // namespace mts
