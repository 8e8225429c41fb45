// The rmsprop exercise of chapter 01 (learning.md): RMSPropOptimizer::ApplyDense(), so that
// rmsprop_test passes (the constructor and the slots are given, in rmsprop_slots.cc). The
// part to write lies between the `[mts:lab rmsprop]` markers; the comment outside them says
// what to decide.
#include "chapters/01_session/exercises/rmsprop/rmsprop.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/learning/math_ops.h"

namespace mts {

Output RMSPropOptimizer::ApplyDense(const Output& grad, const Variable& var) {
  // [mts:exercise-todo]
  // TODO(student): one RMSProp step, as rmsprop.h states it, over the slots GetSlot(var,
  // "rms"), GetSlot(var, "mg") (centered_ only) and GetSlot(var, "momentum"). Every update
  // must see the values of *this* step: the graph runs an op whenever its inputs are ready,
  // so decide what makes each update wait for the one it depends on. And momentum_ == 0:
  // the header says what it means; what would skipping the momentum slot break?
  // [mts:lab rmsprop]
  Output decay = ScalarLike(var, decay_, "decay");
  Output one_minus_decay = ScalarLike(var, 1.0 - decay_, "one_minus_decay");
  // Each Assign outputs the new value, and every later update reads that output, not the
  // slot: the data edge is what orders the updates, so no step sees a stale value.
  Variable rms = GetSlot(var, "rms");
  Output new_rms = rms.Assign(Add(Mul(decay, rms.value()), Mul(one_minus_decay, Square(grad))));
  Output denominator = new_rms;
  if (centered_) {
    Variable mg = GetSlot(var, "mg");
    Output new_mg = mg.Assign(Add(Mul(decay, mg.value()), Mul(one_minus_decay, grad)));
    denominator = Sub(new_rms, Square(new_mg));
  }
  // Always through the momentum slot, as TensorFlow's ApplyRMSProp does: with momentum 0
  // the slot holds this step's move, which is the plain rule, and nothing needs a branch.
  Variable mom = GetSlot(var, "momentum");
  Output step = Div(Mul(ScalarLike(var, learning_rate_, "learning_rate"), grad),
                    Sqrt(Add(denominator, ScalarLike(var, epsilon_, "epsilon"))));
  Output new_mom = mom.Assign(Add(Mul(ScalarLike(var, momentum_, "momentum"), mom.value()), step));
  return var.AssignSub(new_mom);
  // [mts:lab-end]
  // [mts:exercise-todo-end]
}

}  // namespace mts
