// Starter for the creation-order report exercise.
#include "chapters/01_session/exercises/report_in_creation_order/report_in_creation_order.h"

namespace mts {

// [mts:exercise-todo]
Output ReportUninitializedInCreationOrder(const std::vector<Variable>& variables) {
  // TODO: the header states the contract. What in the graph records the order in which
  // variables were created, and what makes two handles the same variable? Then decide how
  // an empty list finds the variables it stands for, in which order, and what is left when
  // no collection holds any. graph.h and operation.h have what you need.
  return ReportUninitializedVariables(variables);
}
// [mts:exercise-todo-end]

}  // namespace mts
