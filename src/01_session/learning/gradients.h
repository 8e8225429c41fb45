// gradients.h: reverse-mode automatic differentiation over a Graph.
//
// Stage 01 (learning): the optimizers build on it. `Gradients(ys, xs)` adds the ops that
// compute d(sum of ys)/d(x), visiting the ops between them in reverse creation order and
// summing the gradients that flow into each output. Each op type registers a gradient
// function built from ordinary ops; NotDifferentiable stops gradients; an op type with
// neither raises ValueError naming the op when a gradient must pass through it.
//
// TensorFlow: tf.gradients (tensorflow/python/ops/gradients_util.py),
// ops.RegisterGradient and ops.NotDifferentiable.
#ifndef MTS_SRC_01_SESSION_GRADIENTS_H_
#define MTS_SRC_01_SESSION_GRADIENTS_H_

#include <string>
#include <vector>

#include "src/01_session/graph.h"

namespace mts {

/// Computes the gradients of an op's inputs from the gradients of its outputs.
/// `grad_outputs[i]` is the gradient of output i, or a null Output if none flows there.
/// Returns one entry per input; a null Output means "no gradient for this input".
using GradFn = std::vector<Output> (*)(const Operation& op,
                                       const std::vector<Output>& grad_outputs);

/// Registers the gradient function of an op type; use as a namespace-scope static.
struct GradientRegistration {
  /// Registers `fn` for `op_type`. \throws AlreadyExistsError on a second registration.
  GradientRegistration(const std::string& op_type, GradFn fn);
};

/// Declares an op type through which no gradient flows (TensorFlow's NotDifferentiable).
struct NotDifferentiable {
  /// Registers `op_type` as stopping gradients.
  explicit NotDifferentiable(const std::string& op_type);
};

// [mts:lab-contract-gradients]
/// Adds ops computing d(sum of ys)/d(xs[i]) for each i and returns them, in the order of
/// `xs`. `grad_ys`, if given, weights each y (default: ones). A null Output is returned for
/// an x that no y depends on.
/// \throws ValueError naming the op if a gradient must pass through an op type with no
///   registered gradient function; ValueError if ys and xs are from different graphs.
std::vector<Output> Gradients(const std::vector<Output>& ys, const std::vector<Output>& xs,
                              const std::vector<Output>& grad_ys = {},
                              const std::string& name = "gradients");
// [mts:lab-contract-gradients-end]

/// Sums tensors of one shape and dtype (TensorFlow's tf.add_n). \pre !inputs.empty().
Output AddN(const std::vector<Output>& inputs, const std::string& name = "AddN");

/// A tensor of ones with the dtype and run-time shape of `input` (tf.ones_like): the
/// gradient Gradients() starts from, and a building block of gradient functions.
Output OnesLike(const Output& input, const std::string& name = "ones_like");

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_GRADIENTS_H_
