// Reference solution of the creation-order report exercise.
#include <algorithm>

#include "chapters/01_session/exercises/report_in_creation_order/report_in_creation_order.h"

namespace mts {

Output ReportUninitializedInCreationOrder(const std::vector<Variable>& variables) {
  std::vector<Variable> ordered = variables;
  auto by_creation = [](const Variable& a, const Variable& b) {
    return a.op()->id() < b.op()->id();
  };
  std::sort(ordered.begin(), ordered.end(), by_creation);
  ordered.erase(std::unique(ordered.begin(), ordered.end()), ordered.end());
  return ReportUninitializedVariables(ordered);
}

}  // namespace mts
