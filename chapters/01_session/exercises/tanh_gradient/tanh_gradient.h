// tanh_gradient.h: an exercise of chapter 01 (learning.md). Write the gradient function of
// a tanh op, so that Gradients() can differentiate through it.
//
//   Session  <-- runs the gradient ops your function adds to the graph
//
// Stage 01 registers a gradient for its own "Tanh" op already, so the exercise brings its
// own copy, "TanhEx": the same forward computation, registered in tanh_ex_op.cc with no
// gradient of its own except the function you write here. tanh_ex_op.cc also registers
// TanhExGrad as the gradient function of "TanhEx":
//
//   const GradientRegistration tanh_ex_grad("TanhEx", TanhExGrad);
//
// so once TanhExGrad is right, Gradients({loss}, {x}) works through every TanhEx op.
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
// [mts:tanh-gradient-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_01_SESSION_EXERCISES_TANH_GRADIENT_TANH_GRADIENT_H_
