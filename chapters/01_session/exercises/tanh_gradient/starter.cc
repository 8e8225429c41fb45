// starter.cc: an exercise of chapter 01 (learning.md), to be completed. Write TanhExGrad()
// so that tanh_gradient_test passes:
//
//   bazel test --define=exercises=starter //chapters/01_session/exercises/tanh_gradient:all
#include "chapters/01_session/exercises/tanh_gradient/tanh_gradient.h"
#include "src/01_session/learning/gradients.h"
#include "src/01_session/learning/math_ops.h"

namespace mts {

std::vector<Output> TanhExGrad(const Operation& op, const std::vector<Output>& grad_outputs) {
  // [mts:exercise-todo]
  // TODO(student): return {the gradient flowing into x}. Two decisions: what to compute the
  // derivative from (look at what the forward pass has already computed), and whether to
  // build it from ordinary ops or from a fused kernel like stage 01's TanhGrad (the tests
  // differentiate your gradient a second time). An empty Output means "no gradient", so
  // Gradients() stops here for now.
  return {Output()};
  // [mts:exercise-todo-end]
}

}  // namespace mts
