#include "src/01_session/learning/optimizer.h"

#include "src/01_session/array_ops.h"
#include "src/01_session/learning/gradients.h"
#include "src/01_session/training_util.h"

namespace mts {

std::vector<GradAndVar> Optimizer::ComputeGradients(const Output& loss,
                                                    const std::vector<Variable>& var_list) {
  std::vector<Variable> vars =
      var_list.empty() ? TrainableVariables(loss.graph()) : var_list;
  if (vars.empty()) throw ValueError("No variables to optimize.");
  std::vector<Output> xs;
  for (const Variable& v : vars) xs.push_back(v.value());
  std::vector<Output> grads = Gradients({loss}, xs);
  std::vector<GradAndVar> result;
  for (size_t i = 0; i < vars.size(); ++i) result.emplace_back(grads[i], vars[i]);
  return result;
}

// [mts:apply-gradients]
Operation* Optimizer::ApplyGradients(const std::vector<GradAndVar>& grads_and_vars,
                                     std::optional<Variable> global_step,
                                     const std::string& name) {
  std::vector<GradAndVar> with_grads;
  for (const auto& gv : grads_and_vars) {
    if (gv.first.op() != nullptr) with_grads.push_back(gv);
  }
  if (with_grads.empty()) {
    std::string names;
    for (const auto& gv : grads_and_vars) names += (names.empty() ? "" : ", ") + gv.second.name();
    throw ValueError("No gradients provided for any variable, check your graph for ops that "
                     "do not support gradients, between variables [" + names + "] and loss.");
  }
  Graph& g = *with_grads.front().second.graph();
  std::vector<Variable> vars;
  for (const auto& gv : with_grads) vars.push_back(gv.second);
  {
    NameScope root(g, "");  // Slots are named after their variables, from the root.
    CreateSlots(vars);
  }

  NameScope scope(g, name.empty() ? name_ : name);
  std::vector<Operation*> updates;
  for (const auto& [grad, var] : with_grads) {
    NameScope update(g, "update_" + var.name());
    updates.push_back(ApplyDense(grad, var).op());
  }
  Operation* train_op = nullptr;
  if (global_step.has_value()) {
    Operation* finished = Finish(updates, "update");
    // The step advances after every update, and after the step read the hooks fetch, so a
    // hook sees in each run the step value from before that run's increment. The train op
    // takes the scope's own name ("GradientDescent"), as in TensorFlow.
    train_op = IncrementGlobalStep(*global_step, 1, {finished}, scope.name() + "/").op();
  } else {
    train_op = Finish(updates, scope.name() + "/");
  }
  g.AddToCollection(GraphKeys::kTrainOp, train_op);
  return train_op;
}
// [mts:apply-gradients-end]

Operation* Optimizer::Minimize(const Output& loss, std::optional<Variable> global_step,
                               const std::vector<Variable>& var_list, const std::string& name) {
  return ApplyGradients(ComputeGradients(loss, var_list), global_step, name);
}

Operation* Optimizer::Finish(const std::vector<Operation*>& update_ops, const std::string& name) {
  return Group(update_ops, name);
}

Variable Optimizer::GetSlot(const Variable& var, const std::string& slot_name) const {
  auto by_name = slots_.find(slot_name);
  if (by_name != slots_.end()) {
    auto it = by_name->second.find(var.op());
    if (it != by_name->second.end()) return it->second;
  }
  throw NotFoundError("Optimizer '" + name_ + "' has no slot '" + slot_name +
                      "' for variable '" + var.name() + "'");
}

std::vector<std::string> Optimizer::GetSlotNames() const {
  std::vector<std::string> names;
  for (const auto& [slot_name, vars] : slots_) names.push_back(slot_name);
  return names;
}

Variable Optimizer::ZerosSlot(const Variable& var, const std::string& slot_name,
                              const std::string& op_name) {
  auto& by_var = slots_[slot_name];
  auto it = by_var.find(var.op());
  if (it != by_var.end()) return it->second;
  VariableOptions options;
  options.name = var.name() + "/" + op_name;
  options.trainable = false;
  Variable slot(Tensor::Zeros(var.dtype(), var.shape()), options);
  by_var.emplace(var.op(), slot);
  return slot;
}

Output Optimizer::ScalarLike(const Variable& var, double value, const std::string& name) {
  Tensor t = var.dtype() == DataType::kDouble ? Tensor::Scalar(value)
                                               : Tensor::Scalar(static_cast<float>(value));
  return Constant(t, name);
}

}  // namespace mts
