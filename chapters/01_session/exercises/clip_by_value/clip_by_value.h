// clip_by_value.h: chapter 01's exercise: a new op, ClipByValue, end to end.
//
//   Session  <-- runs the op you add
//
// Adding an op to mts takes three pieces, all in one .cc file: a builder function that adds
// the Operation to the graph, a shape function that checks the inputs while the graph is
// built, and a kernel that computes the output when a Session runs it. The builder and the
// registration are given (clip_by_value_op.cc); you write the other two (starter.cc).
//
// TensorFlow: tf.clip_by_value.
#ifndef MTS_CHAPTERS_01_SESSION_EXERCISES_CLIP_BY_VALUE_CLIP_BY_VALUE_H_
#define MTS_CHAPTERS_01_SESSION_EXERCISES_CLIP_BY_VALUE_CLIP_BY_VALUE_H_

#include <string>

#include "src/01_session/graph.h"
#include "src/01_session/op_def.h"
#include "src/01_session/op_kernel_context.h"

namespace mts {

// [mts:clip-api]
/// Every element of `t` limited to [clip_min, clip_max] (op type "ClipByValue").
/// `clip_min` and `clip_max` are scalars of t's dtype. The output has t's dtype and shape.
/// \throws TypeError at build time if the three dtypes differ or are not numeric;
///   ValueError if a bound is not a scalar (when its rank is known).
///   Running it raises InvalidArgumentError naming the op if clip_min > clip_max, or if a
///   bound whose rank was unknown while building turns out not to be a scalar (a tensor
///   of shape [1] is not one).
Output ClipByValue(const Output& t, const Output& clip_min, const Output& clip_max,
                   const std::string& name = "clip_by_value");

/// The shape function you write: checks the inputs and adds one output.
void ClipByValueShape(ShapeContext& ctx);
/// The kernel you write: computes the clipped tensor.
void ClipByValueKernel(OpKernelContext& ctx);
// [mts:clip-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_01_SESSION_EXERCISES_CLIP_BY_VALUE_CLIP_BY_VALUE_H_
