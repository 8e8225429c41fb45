// clip_by_global_norm.h: an exercise of chapter 01 (learning.md). Rescale a list of
// gradients so that, taken together, they are never longer than a limit.
//
//   Session  <-- runs the clipping ops between ComputeGradients and ApplyGradients
//
// One bad batch can produce a huge gradient and throw a model far from where it was. The
// usual guard treats all the gradients of one step as one long vector, measures its length
// (the *global norm*), and shrinks every gradient by the same factor when that length
// exceeds `clip_norm`:
//
//   global_norm = sqrt(sum over every tensor t, every element e of t: e^2)
//   clipped t   = t * clip_norm / max(global_norm, clip_norm)
//
// Below the limit nothing changes; above it, the direction of the step is kept and only its
// length is cut to clip_norm. A global norm that is not finite (an inf or a NaN anywhere, or
// squares that overflow) cannot be clipped to anything meaningful: then every element of
// every clipped tensor is NaN, as in TensorFlow. It sits between the two halves of Minimize:
//
//   std::vector<GradAndVar> grads_and_vars = optimizer.ComputeGradients(loss);
//   ... clip the gradients, pair them with their variables again ...
//   Operation* train_op = optimizer.ApplyGradients(clipped_grads_and_vars, global_step);
//
// TensorFlow: tf.clip_by_global_norm (tensorflow/python/ops/clip_ops.py).
#ifndef MTS_CHAPTERS_01_SESSION_EXERCISES_CLIP_BY_GLOBAL_NORM_CLIP_BY_GLOBAL_NORM_H_
#define MTS_CHAPTERS_01_SESSION_EXERCISES_CLIP_BY_GLOBAL_NORM_CLIP_BY_GLOBAL_NORM_H_

#include <string>
#include <vector>

#include "src/01_session/graph.h"

namespace mts {

// [mts:clip-by-global-norm-api]
/// What ClipByGlobalNorm returns.
struct ClippedTensors {
  /// One entry per input, in order; a null input stays null.
  std::vector<Output> clipped;
  /// The global norm of the inputs before clipping: a scalar of their dtype.
  Output global_norm;
};

/// Clips `tensors` (gradients, typically) by their global norm, as described above; every
/// clipped element is NaN when the global norm is not finite. The ops are made in the graph
/// of the tensors, under the name scope `name`.
/// \pre At least one tensor is non-null; all non-null tensors have one float dtype;
///   clip_norm > 0.
/// \throws ValueError if every tensor is null.
ClippedTensors ClipByGlobalNorm(const std::vector<Output>& tensors, double clip_norm,
                                const std::string& name = "clip_by_global_norm");
// [mts:clip-by-global-norm-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_01_SESSION_EXERCISES_CLIP_BY_GLOBAL_NORM_CLIP_BY_GLOBAL_NORM_H_
