// starter.cc: an exercise of chapter 01 (learning.md), to be completed. Write TanhExGrad()
// and MaximumExGrad() so that tanh_gradient_test passes:
//
//   bazel test --define=exercises=starter //chapters/01_session/exercises/tanh_gradient:all
#include "chapters/01_session/exercises/tanh_gradient/tanh_gradient.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/learning/gradients.h"
#include "src/01_session/learning/math_ops.h"

namespace mts {

// [mts:exercise-todo]
// TODO(student): each function returns the gradients flowing into the op's inputs, built
// from ordinary ops in op's graph; an empty Output means "no gradient", so Gradients()
// stops at these ops for now.
//
// TanhExGrad: decide what to compute the derivative from (look at what the forward pass
// has already computed), and whether to build it from ordinary ops or from a fused kernel
// like stage 01's TanhGrad (the tests differentiate your gradient a second time).
std::vector<Output> TanhExGrad(const Operation& op, const std::vector<Output>& grad_outputs) {
  return {Output()};
}

// MaximumExGrad: decide how to send g to the larger input without comparing twice in a
// way that double-counts a tie: the header says who gets g where x == y, and the tests
// take max(x, x). The comparison ops of math_ops.h and Cast (array_ops.h) are enough.
std::vector<Output> MaximumExGrad(const Operation& op, const std::vector<Output>& grad_outputs) {
  return {Output(), Output()};
}
// [mts:exercise-todo-end]

}  // namespace mts
