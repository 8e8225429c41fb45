// Starter for the ClipByValue exercise: write the shape function and the kernel.
#include "chapters/01_session/exercises/clip_by_value/clip_by_value.h"
#include "src/01_session/tensor_types.h"

namespace mts {

// [mts:exercise-todo]
void ClipByValueShape(ShapeContext& ctx) {
  // TODO: the header lists the errors. Decide which of them the shape function can raise
  // (what is known while the graph is built?) and which only the kernel can; a check that
  // depends on something unknown at build time has to be made again when the op runs.
  ctx.AddOutput(ctx.inputs[0].dtype(), ctx.inputs[0].shape());
}

void ClipByValueKernel(OpKernelContext& ctx) {
  // TODO: the clipped tensor, with one Eigen expression over flat<T>() (DispatchDataType
  // turns the dtype into a C++ type), after the checks only the values allow. An error
  // raised here should name ctx.op().name(): why does that matter more than at build time?
  ctx.set_output(0, ctx.input(0));
}
// [mts:exercise-todo-end]

}  // namespace mts
