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
  // TODO(student): build the global norm and the clipped tensors from the ops of this stage
  // (math_ops.h, nn_ops.h, AddN in gradients.h), in the tensors' graph, under a NameScope
  // for `name`; a null tensor keeps its place. There is no Maximum and no IsFinite op:
  // decide how to express max(norm, clip) without dividing by a zero norm, and what the
  // clipped tensors become when the norm is inf or NaN. Would zeros (a skipped step) be
  // better than NaN there? The header says what TensorFlow chose; the tests pin it.
  // A constant must have the tensors' dtype: Tensor::Scalar(float or double value).
  result.clipped = tensors;  // Unclipped, for now.
  // [mts:exercise-todo-end]
  return result;
}

}  // namespace mts
