// solution.cc: the reference solution to the clip_by_global_norm exercise of chapter 01.
// The student copy (tools/export_student_copy.sh) leaves this file out.
#include "chapters/01_session/exercises/clip_by_global_norm/clip_by_global_norm.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/learning/gradients.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/learning/nn_ops.h"

namespace mts {

ClippedTensors ClipByGlobalNorm(const std::vector<Output>& tensors, double clip_norm,
                                const std::string& name) {
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
  ClippedTensors result;
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
  return result;
}

}  // namespace mts
