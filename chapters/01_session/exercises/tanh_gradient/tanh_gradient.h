// tanh_gradient.h: an exercise of chapter 01 (learning.md). Write the gradient functions of
// two ops, a tanh and an elementwise maximum, so that Gradients() can differentiate
// through them.
//
//   Session  <-- runs the gradient ops your functions add to the graph
//
// Stage 01 registers a gradient for its own "Tanh" op already, so the exercise brings its
// own ops, "TanhEx" (the same forward computation) and "MaximumEx" (which stage 01 does
// not have), registered in tanh_ex_op.cc with no gradient but the functions you write
// here:
//
//   const GradientRegistration tanh_ex_grad("TanhEx", TanhExGrad);
//   const GradientRegistration maximum_ex_grad("MaximumEx", MaximumExGrad);
//
// so once they are right, Gradients({loss}, {x}) works through every TanhEx and MaximumEx.
//
// max(x, y) has no derivative where x == y. Any split of the gradient g between x and y
// that adds up to g is a valid subgradient there; TensorFlow 1 gives all of it to x, and so
// must MaximumExGrad: its two gradients add up to g everywhere, ties included.
#ifndef MTS_CHAPTERS_01_SESSION_EXERCISES_TANH_GRADIENT_TANH_GRADIENT_H_
#define MTS_CHAPTERS_01_SESSION_EXERCISES_TANH_GRADIENT_TANH_GRADIENT_H_

#include <string>
#include <vector>

#include "src/01_session/graph.h"

namespace mts {

// [mts:tanh-gradient-api]
/// The hyperbolic tangent, elementwise: an op of type "TanhEx" (given). Its output has the
/// dtype and shape of `x`. \throws TypeError unless `x` is float32 or float64.
Output TanhEx(const Output& x, const std::string& name = "TanhEx");

/// The gradient function of "TanhEx" (yours to write). `op` is a TanhEx op with input x and
/// output y = tanh(x); `grad_outputs[0]` is the gradient g flowing into y. Returns one
/// entry, the gradient flowing into x, built from ordinary ops in op's graph.
std::vector<Output> TanhExGrad(const Operation& op, const std::vector<Output>& grad_outputs);

/// The larger of `x` and `y`, elementwise: an op of type "MaximumEx" (given). `x` and `y`
/// must have one float dtype and one shape (no broadcasting); the output has both.
/// \throws TypeError or ValueError otherwise.
Output MaximumEx(const Output& x, const Output& y, const std::string& name = "MaximumEx");

/// The gradient function of "MaximumEx" (yours to write). `op` has inputs x and y;
/// `grad_outputs[0]` is the gradient g flowing into max(x, y). Returns two entries, the
/// gradients flowing into x and into y: g goes to the larger input, and where x == y all of
/// it goes to x, so that the two always add up to g.
std::vector<Output> MaximumExGrad(const Operation& op, const std::vector<Output>& grad_outputs);
// [mts:tanh-gradient-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_01_SESSION_EXERCISES_TANH_GRADIENT_TANH_GRADIENT_H_
