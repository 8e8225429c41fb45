// rmsprop.h: an exercise of chapter 01 (learning.md). Write the update of an RMSProp
// optimizer from the ops you already know, instead of a fused kernel.
//
//   Session  <-- runs the train op Minimize() builds from your ApplyDense
//
// RMSProp divides each gradient by a running root-mean-square of that variable's recent
// gradients, so every element takes steps of similar size whatever its gradient's scale.
// TensorFlow 1's RMSPropOptimizer adds momentum and, optionally, centering. For a variable
// w with gradient g, one step is
//
//   rms <- decay * rms + (1 - decay) * g^2
//   mg  <- decay * mg + (1 - decay) * g                  (centered only)
//   mom <- momentum * mom + learning_rate * g / sqrt(d)
//   w   <- w - mom
//
// with d = rms + epsilon, or d = rms - mg^2 + epsilon when centered (mg^2 estimates the
// squared mean, so d estimates the variance instead of the second moment). rms, mg and mom
// are slot variables of w's shape, starting at zero. The Optimizer base (optimizer.h) does
// everything else: computing the gradients, calling CreateSlots once (given, in
// rmsprop_slots.cc) and ApplyDense once per variable, grouping the updates, and incrementing
// the global step.
//
// mts deviation: TensorFlow's tf.train.RMSPropOptimizer starts rms at one, not zero;
// ZerosSlot makes zeros.
#ifndef MTS_CHAPTERS_01_SESSION_EXERCISES_RMSPROP_RMSPROP_H_
#define MTS_CHAPTERS_01_SESSION_EXERCISES_RMSPROP_RMSPROP_H_

#include <string>
#include <vector>

#include "src/01_session/learning/optimizer.h"

namespace mts {

// [mts:rmsprop-api]
/// RMSProp with a constant learning rate, as TensorFlow 1 defines it. Slots, named as
/// TensorFlow names them: "rms" ("<var>/RMSProp"), "mg" when centered ("<var>/RMSProp_1")
/// and "momentum" ("<var>/RMSProp_1", or "<var>/RMSProp_2" when centered).
class RMSPropOptimizer : public Optimizer {
 public:
  /// An optimizer with TensorFlow's hyperparameters, in TensorFlow's order, whose ops are
  /// named under `name`. `momentum` 0 is still a momentum update (the slot exists and holds
  /// the last step), which is exactly the plain RMSProp rule.
  explicit RMSPropOptimizer(double learning_rate, double decay = 0.9, double momentum = 0.0,
                            double epsilon = 1e-10, bool centered = false,
                            const std::string& name = "RMSProp");

 protected:
  /// Makes the slots of every variable, zero-initialised (given).
  void CreateSlots(const std::vector<Variable>& vars) override;
  /// The op that applies one RMSProp step to `var` (yours to write): it updates the slots,
  /// then `var`, and its output is `var`'s new value. Build it from Assign/AssignSub
  /// (variables.h) and the ops of math_ops.h; ScalarLike (optimizer.h) makes the constants.
  Output ApplyDense(const Output& grad, const Variable& var) override;

 private:
  double learning_rate_;
  double decay_;
  double momentum_;
  double epsilon_;
  bool centered_;
};
// [mts:rmsprop-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_01_SESSION_EXERCISES_RMSPROP_RMSPROP_H_
