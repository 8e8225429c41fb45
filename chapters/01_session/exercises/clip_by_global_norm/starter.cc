// starter.cc: an exercise of chapter 01 (learning.md), to be completed. Write
// ClipByGlobalNorm() so that clip_by_global_norm_test passes:
//
//   bazel test --define=exercises=starter //chapters/01_session/exercises/clip_by_global_norm:all
#include "chapters/01_session/exercises/clip_by_global_norm/clip_by_global_norm.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/learning/gradients.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/learning/nn_ops.h"

namespace mts {

ClippedTensors ClipByGlobalNorm(const std::vector<Output>& tensors, double clip_norm,
                                const std::string& name) {
  ClippedTensors result;
  // [mts:exercise-todo]
  // TODO(student): build the global norm and the clipped tensors from ops you know:
  // Square, ReduceSum, AddN (gradients.h), Sqrt, Mul, Div, Add, Sub. Two hints:
  //  - math_ops.h has no Maximum, but max(a, b) = b + relu(a - b) (Relu is in nn_ops.h);
  //  - a constant must have the tensors' dtype: Tensor::Scalar(float or double value).
  // Skip null tensors, keeping their place in `clipped`. Open a NameScope for `name`.
  result.clipped = tensors;  // Unclipped, for now.
  // [mts:exercise-todo-end]
  return result;
}

}  // namespace mts
