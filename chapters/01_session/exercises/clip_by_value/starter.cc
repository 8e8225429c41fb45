// Starter for the ClipByValue exercise: write the shape function and the kernel.
#include "chapters/01_session/exercises/clip_by_value/clip_by_value.h"

namespace mts {

// [mts:exercise-todo]
void ClipByValueShape(ShapeContext& ctx) {
  // TODO: check that t, clip_min and clip_max share one numeric dtype (TypeError
  // otherwise) and that the bounds are scalars when their rank is known (ValueError), then
  // add one output with t's dtype and static shape: ctx.AddOutput(dtype, shape).
  ctx.AddOutput(ctx.inputs[0].dtype(), ctx.inputs[0].shape());
}

void ClipByValueKernel(OpKernelContext& ctx) {
  // TODO: read the bounds, raise InvalidArgumentError (naming ctx.op().name()) if
  // clip_min > clip_max, and write min(max(t, clip_min), clip_max) with one Eigen
  // expression over flat<T>(). DispatchDataType turns the dtype into a C++ type.
  ctx.set_output(0, ctx.input(0));
}
// [mts:exercise-todo-end]

}  // namespace mts
