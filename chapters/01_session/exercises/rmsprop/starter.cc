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
  // TODO(student): one RMSProp step, as rmsprop.h states it, over the slots GetSlot(var,
  // "rms"), GetSlot(var, "mg") (centered_ only) and GetSlot(var, "momentum"). Every update
  // must see the values of *this* step: the graph runs an op whenever its inputs are ready,
  // so decide what makes each update wait for the one it depends on. And momentum_ == 0:
  // the header says what it means; what would skipping the momentum slot break?
  // For now the "update" only reads var, so training goes nowhere.
  return Identity(var.value());
  // [mts:exercise-todo-end]
}

}  // namespace mts
