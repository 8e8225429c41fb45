// starter.cc: an exercise of chapter 01 (learning.md), to be completed. Write
// RMSPropOptimizer::ApplyDense() so that rmsprop_test passes:
//
//   bazel test --define=exercises=starter //chapters/01_session/exercises/rmsprop:all
#include "chapters/01_session/exercises/rmsprop/rmsprop.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/learning/math_ops.h"

namespace mts {

Output RMSPropOptimizer::ApplyDense(const Output& grad, const Variable& var) {
  // [mts:exercise-todo]
  // TODO(student): update the slot GetSlot(var, "rms") with rms.Assign(...), then update
  // var with var.AssignSub(...), and return the latter. Make sure var's update uses the
  // *new* rms: what makes one op run after another in a graph?
  // For now the "update" only reads var, so training goes nowhere.
  return Identity(var.value());
  // [mts:exercise-todo-end]
}

}  // namespace mts
