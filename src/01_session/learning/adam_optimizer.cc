#include "src/01_session/learning/adam_optimizer.h"

#include "src/01_session/array_ops.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/learning/training_ops.h"

namespace mts {

namespace {
Tensor ScalarOfDtype(DataType dtype, double value) {
  return dtype == DataType::kDouble ? Tensor::Scalar(value)
                                    : Tensor::Scalar(static_cast<float>(value));
}
}  // namespace

void AdamOptimizer::CreateSlots(const std::vector<Variable>& vars) {
  if (!beta1_power_.has_value()) {
    VariableOptions options;
    options.trainable = false;
    options.name = "beta1_power";
    beta1_power_ = Variable(ScalarOfDtype(vars.front().dtype(), beta1_), options);
    options.name = "beta2_power";
    beta2_power_ = Variable(ScalarOfDtype(vars.front().dtype(), beta2_), options);
  }
  for (const Variable& v : vars) {
    ZerosSlot(v, "m", name());
    ZerosSlot(v, "v", name() + "_1");
  }
}

Output AdamOptimizer::ApplyDense(const Output& grad, const Variable& var) {
  return ApplyAdam(var, GetSlot(var, "m"), GetSlot(var, "v"), beta1_power_->value(),
                   beta2_power_->value(), ScalarLike(var, learning_rate_, "learning_rate"),
                   ScalarLike(var, beta1_, "beta1"), ScalarLike(var, beta2_, "beta2"),
                   ScalarLike(var, epsilon_, "epsilon"), grad);
}

Operation* AdamOptimizer::Finish(const std::vector<Operation*>& update_ops,
                                 const std::string& name) {
  // The powers advance only after every variable used this step's values.
  std::vector<Operation*> all = update_ops;
  {
    ControlDependencies after(update_ops);
    all.push_back(beta1_power_->Assign(Mul(beta1_power_->value(),
                                           ScalarLike(*beta1_power_, beta1_, "beta1")),
                                       "update_beta1").op());
    all.push_back(beta2_power_->Assign(Mul(beta2_power_->value(),
                                           ScalarLike(*beta2_power_, beta2_, "beta2")),
                                       "update_beta2").op());
  }
  return Group(all, name);
}

}  // namespace mts
