// The tanh_gradient exercise of chapter 01 (learning.md): TanhExGrad() and MaximumExGrad(),
// so that tanh_gradient_test passes. The parts to write lie between the
// `[mts:lab tanh_gradient]` markers; the comments outside them say what to decide.
#include "chapters/01_session/exercises/tanh_gradient/tanh_gradient.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/learning/gradients.h"
#include "src/01_session/learning/math_ops.h"

namespace mts {

// [mts:exercise-todo]
// TODO(student): each function returns the gradients flowing into the op's inputs, built
// from ordinary ops in op's graph; an empty Output means "no gradient", and Gradients()
// stops there.
//
// TanhExGrad: decide what to compute the derivative from (look at what the forward pass
// has already computed), and whether to build it from ordinary ops or from a fused kernel
// like stage 01's TanhGrad (the tests differentiate your gradient a second time).
std::vector<Output> TanhExGrad(const Operation& op, const std::vector<Output>& grad_outputs) {
  // [mts:lab tanh_gradient]
  // d tanh(x) / dx = 1 - tanh(x)^2 = 1 - y^2: the output is all we need, no second tanh.
  // Ordinary ops, each with a gradient of its own, so the result can be differentiated
  // again (stage 01's fused TanhGrad cannot).
  Output y = op.output(0);
  return {Mul(grad_outputs[0], Sub(OnesLike(y), Square(y)))};
  // [mts:lab-end]
}

// MaximumExGrad: decide how to send g to the larger input without comparing twice in a
// way that double-counts a tie: the header says who gets g where x == y, and the tests
// take max(x, x). The comparison ops of math_ops.h and Cast (array_ops.h) are enough.
std::vector<Output> MaximumExGrad(const Operation& op, const std::vector<Output>& grad_outputs) {
  // [mts:lab tanh_gradient]
  const Output& g = grad_outputs[0];
  // One comparison, x >= y, decides for both inputs: x takes g where it is the larger or
  // equal, y takes the rest. Two masks (x >= y and y >= x) would both be 1 at a tie and
  // hand out 2g; x > y and y > x would both be 0 and lose it.
  Output x_wins = Cast(GreaterEqual(op.input(0), op.input(1)), g.dtype());
  Output x_grad = Mul(g, x_wins);
  return {x_grad, Sub(g, x_grad)};
  // [mts:lab-end]
}
// [mts:exercise-todo-end]

}  // namespace mts
