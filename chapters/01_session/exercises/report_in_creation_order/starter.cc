// Starter for the creation-order report exercise.
#include "chapters/01_session/exercises/report_in_creation_order/report_in_creation_order.h"

namespace mts {

// [mts:exercise-todo]
Output ReportUninitializedInCreationOrder(const std::vector<Variable>& variables) {
  // TODO: every Operation knows its creation index, op()->id(). Order the variables by it,
  // drop duplicates, and build the report over the ordered list.
  return ReportUninitializedVariables(variables);
}
// [mts:exercise-todo-end]

}  // namespace mts
