// gradient_descent_optimizer.h: plain stochastic gradient descent, var -= lr * grad.
//
//   Session  <-- runs the train op Minimize() returns (see optimizer.h for the lifecycle)
//
// Example:
//   GradientDescentOptimizer sgd(0.1f);
//   Operation* train_op = sgd.Minimize(loss, GetOrCreateGlobalStep());
//
// TensorFlow: tf.train.GradientDescentOptimizer (gradient_descent.py).
#ifndef MTS_SRC_01_SESSION_GRADIENT_DESCENT_OPTIMIZER_H_
#define MTS_SRC_01_SESSION_GRADIENT_DESCENT_OPTIMIZER_H_

#include "src/01_session/learning/optimizer.h"

namespace mts {

/// Gradient descent with a constant learning rate. No slots.
class GradientDescentOptimizer : public Optimizer {
 public:
  /// An optimizer with `learning_rate`, whose ops are named under `name`.
  explicit GradientDescentOptimizer(double learning_rate,
                                    const std::string& name = "GradientDescent")
      : Optimizer(name), learning_rate_(learning_rate) {}

 protected:
  /// ApplyGradientDescent(var, learning_rate, grad).
  Output ApplyDense(const Output& grad, const Variable& var) override;

 private:
  double learning_rate_;
};

/// Gradient descent with momentum, accumulating in the slot "momentum" ("<var>/Momentum").
class MomentumOptimizer : public Optimizer {
 public:
  /// An optimizer with `learning_rate` and `momentum`; Nesterov's variant if asked.
  MomentumOptimizer(double learning_rate, double momentum, bool use_nesterov = false,
                    const std::string& name = "Momentum")
      : Optimizer(name),
        learning_rate_(learning_rate),
        momentum_(momentum),
        use_nesterov_(use_nesterov) {}

 protected:
  /// Makes the "momentum" slot of every variable.
  void CreateSlots(const std::vector<Variable>& vars) override;
  /// ApplyMomentum(var, accum, learning_rate, grad, momentum).
  Output ApplyDense(const Output& grad, const Variable& var) override;

 private:
  double learning_rate_;
  double momentum_;
  bool use_nesterov_;
};

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_GRADIENT_DESCENT_OPTIMIZER_H_
