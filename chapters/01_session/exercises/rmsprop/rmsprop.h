// rmsprop.h: an exercise of chapter 01 (learning.md). Write the update of an RMSProp
// optimizer from the ops you already know, instead of a fused kernel.
//
//   Session  <-- runs the train op Minimize() builds from your ApplyDense
//
// RMSProp divides each gradient by a running root-mean-square of that variable's recent
// gradients, so every element takes steps of similar size whatever its gradient's scale.
// For a variable w with gradient g, one step is
//
//   rms <- decay * rms + (1 - decay) * g^2
//   w   <- w - learning_rate * g / sqrt(rms + epsilon)
//
// where rms is a slot variable of w's shape ("w/RMSProp"), starting at zero. The Optimizer
// base (optimizer.h) does everything else: computing the gradients, calling CreateSlots once
// (given, in rmsprop_slots.cc) and ApplyDense once per variable, grouping the updates, and
// incrementing the global step.
//
// mts deviation: TensorFlow's tf.train.RMSPropOptimizer starts rms at one, not zero, and
// adds optional momentum and centering; ZerosSlot makes zeros, and the exercise keeps the
// plain rule.
#ifndef MTS_CHAPTERS_01_SESSION_EXERCISES_RMSPROP_RMSPROP_H_
#define MTS_CHAPTERS_01_SESSION_EXERCISES_RMSPROP_RMSPROP_H_

#include <string>
#include <vector>

#include "src/01_session/learning/optimizer.h"

namespace mts {

// [mts:rmsprop-api]
/// RMSProp with a constant learning rate; one slot, "rms" ("<var>/RMSProp").
class RMSPropOptimizer : public Optimizer {
 public:
  /// An optimizer with `learning_rate`, `decay` and `epsilon`, whose ops are named under
  /// `name`.
  explicit RMSPropOptimizer(double learning_rate, double decay = 0.9, double epsilon = 1e-10,
                            const std::string& name = "RMSProp");

 protected:
  /// Makes the "rms" slot of every variable, zero-initialised (given).
  void CreateSlots(const std::vector<Variable>& vars) override;
  /// The op that applies one RMSProp step to `var` (yours to write): it updates the "rms"
  /// slot, then `var`, and its output is `var`'s new value. Build it from Assign/AssignSub
  /// (variables.h) and the ops of math_ops.h; ScalarLike (optimizer.h) makes the constants.
  Output ApplyDense(const Output& grad, const Variable& var) override;

 private:
  double learning_rate_;
  double decay_;
  double epsilon_;
};
// [mts:rmsprop-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_01_SESSION_EXERCISES_RMSPROP_RMSPROP_H_
