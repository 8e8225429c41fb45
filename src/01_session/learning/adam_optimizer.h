// adam_optimizer.h: Adam, with per-variable first and second moment slots.
//
//   Session  <-- runs the train op Minimize() returns (see optimizer.h for the lifecycle)
//
// Each variable gets two slots, "m" ("<var>/Adam") and "v" ("<var>/Adam_1"); the optimizer
// also keeps two non-slot variables, "beta1_power" and "beta2_power", the running powers used
// for bias correction, advanced once per step after every variable was updated. All four are
// global variables: a checkpoint holds them and a restored run continues the same trajectory.
//
// Example:
//   AdamOptimizer adam(0.01);
//   Operation* train_op = adam.Minimize(loss, GetOrCreateGlobalStep());
//
// TensorFlow: tf.train.AdamOptimizer (tensorflow/python/training/adam.py).
#ifndef MTS_SRC_01_SESSION_ADAM_OPTIMIZER_H_
#define MTS_SRC_01_SESSION_ADAM_OPTIMIZER_H_

#include <optional>

#include "src/01_session/learning/optimizer.h"

namespace mts {

/// The Adam optimizer (Kingma and Ba), with TensorFlow's defaults.
class AdamOptimizer : public Optimizer {
 public:
  /// An optimizer with TensorFlow's default hyperparameters unless given.
  explicit AdamOptimizer(double learning_rate = 0.001, double beta1 = 0.9, double beta2 = 0.999,
                         double epsilon = 1e-8, const std::string& name = "Adam")
      : Optimizer(name),
        learning_rate_(learning_rate),
        beta1_(beta1),
        beta2_(beta2),
        epsilon_(epsilon) {}

  /// The running power of beta1, or nullopt before ApplyGradients made it.
  std::optional<Variable> beta1_power() const { return beta1_power_; }
  /// The running power of beta2, or nullopt before ApplyGradients made it.
  std::optional<Variable> beta2_power() const { return beta2_power_; }

 protected:
  /// Makes the "m" and "v" slots of every variable and the two beta powers.
  void CreateSlots(const std::vector<Variable>& vars) override;
  /// ApplyAdam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad).
  Output ApplyDense(const Output& grad, const Variable& var) override;
  /// Groups the updates, then multiplies each beta power by its beta.
  Operation* Finish(const std::vector<Operation*>& update_ops, const std::string& name) override;

 private:
  double learning_rate_, beta1_, beta2_, epsilon_;
  std::optional<Variable> beta1_power_, beta2_power_;
};

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_ADAM_OPTIMIZER_H_
