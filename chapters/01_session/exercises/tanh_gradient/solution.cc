// solution.cc: the reference solution to the tanh_gradient exercise of chapter 01. The
// student copy (tools/export_student_copy.sh) leaves this file out.
#include "chapters/01_session/exercises/tanh_gradient/tanh_gradient.h"
#include "src/01_session/learning/gradients.h"
#include "src/01_session/learning/math_ops.h"

namespace mts {

std::vector<Output> TanhExGrad(const Operation& op, const std::vector<Output>& grad_outputs) {
  // d tanh(x) / dx = 1 - tanh(x)^2 = 1 - y^2: the output is all we need, no second tanh.
  Output y(const_cast<Operation*>(&op), 0);
  return {Mul(grad_outputs[0], Sub(OnesLike(y), Square(y)))};
}

}  // namespace mts
