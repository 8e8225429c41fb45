#include "src/01_session/learning/gradient_descent_optimizer.h"

#include "src/01_session/learning/training_ops.h"

namespace mts {

Output GradientDescentOptimizer::ApplyDense(const Output& grad, const Variable& var) {
  return ApplyGradientDescent(var, ScalarLike(var, learning_rate_, "learning_rate"), grad);
}

void MomentumOptimizer::CreateSlots(const std::vector<Variable>& vars) {
  for (const Variable& v : vars) ZerosSlot(v, "momentum", name());
}

Output MomentumOptimizer::ApplyDense(const Output& grad, const Variable& var) {
  return ApplyMomentum(var, GetSlot(var, "momentum"),
                       ScalarLike(var, learning_rate_, "learning_rate"), grad,
                       ScalarLike(var, momentum_, "momentum"), use_nesterov_);
}

}  // namespace mts
