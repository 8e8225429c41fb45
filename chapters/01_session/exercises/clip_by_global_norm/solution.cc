// The clip_by_global_norm exercise of chapter 01 (learning.md): ClipByGlobalNorm(), so
// that clip_by_global_norm_test passes. The part to write lies between the
// `[mts:lab clip_by_global_norm]` markers; the comments outside them say what to decide.
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
  // [mts:lab clip_by_global_norm]
  std::vector<Output> present;
  for (const Output& t : tensors) {
    if (t.op() != nullptr) present.push_back(t);
  }
  if (present.empty()) throw ValueError("ClipByGlobalNorm: every tensor is null");
  const DataType dtype = present.front().dtype();
  auto scalar = [dtype](double value) {
    return Constant(dtype == DataType::kDouble ? Tensor::Scalar(value)
                                               : Tensor::Scalar(static_cast<float>(value)));
  };

  // The constants below go to the default graph: make it the tensors' graph.
  DefaultGraphScope as_default(*present.front().graph());
  NameScope scope(name);
  // The squared length of the one long vector is the sum of every tensor's squared length.
  std::vector<Output> squared_norms;
  for (const Output& t : present) squared_norms.push_back(ReduceSum(Square(t)));
  result.global_norm = Sqrt(AddN(squared_norms), "global_norm");

  // scale = clip / max(norm, clip), with max(norm, clip) = clip + relu(norm - clip). It is
  // exactly 1 below the limit, and never divides by a zero norm.
  Output clip = scalar(clip_norm);
  Output finite_scale = Div(clip, Add(clip, Relu(Sub(result.global_norm, clip))));
  // A non-finite norm would give scale 0 (clip / inf), quietly zeroing a step that went
  // wrong. norm - norm is 0 for a finite norm and NaN for inf or NaN, so adding it makes
  // every clipped value NaN instead, which NanTensorHook and CheckNumerics will catch.
  Output scale = Add(finite_scale, Sub(result.global_norm, result.global_norm), "scale");
  for (const Output& t : tensors) {
    result.clipped.push_back(t.op() == nullptr ? Output() : Mul(t, scale));
  }
  // [mts:lab-end]
  // [mts:exercise-todo-end]
  return result;
}

}  // namespace mts
