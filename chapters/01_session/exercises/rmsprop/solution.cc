// solution.cc: the reference solution to the rmsprop exercise of chapter 01. The student
// copy (tools/export_student_copy.sh) leaves this file out.
#include "chapters/01_session/exercises/rmsprop/rmsprop.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/learning/math_ops.h"

namespace mts {

Output RMSPropOptimizer::ApplyDense(const Output& grad, const Variable& var) {
  Variable rms = GetSlot(var, "rms");
  // rms <- decay * rms + (1 - decay) * g^2. Assign outputs the new value.
  Output new_rms = rms.Assign(Add(Mul(ScalarLike(var, decay_, "decay"), rms.value()),
                                  Mul(ScalarLike(var, 1.0 - decay_, "one_minus_decay"),
                                      Square(grad))));
  // Reading new_rms (not rms.value()) is what orders the two updates: var's update takes
  // the slot's Assign as an input, so it cannot run before it.
  Output step = Mul(ScalarLike(var, learning_rate_, "learning_rate"),
                    Div(grad, Sqrt(Add(new_rms, ScalarLike(var, epsilon_, "epsilon")))));
  return var.AssignSub(step);
}

}  // namespace mts
