// Reference solution of the creation-order report exercise.
#include <algorithm>

#include "chapters/01_session/exercises/report_in_creation_order/report_in_creation_order.h"

namespace mts {

Output ReportUninitializedInCreationOrder(const std::vector<Variable>& variables) {
  std::vector<Operation*> ops;
  for (const Variable& v : variables) ops.push_back(v.op());
  if (ops.empty()) {
    // The default, as TensorFlow's var_list=None: the global and the local variables.
    for (const Variable& v : GlobalVariables()) ops.push_back(v.op());
    for (const Variable& v : LocalVariables()) ops.push_back(v.op());
  }
  if (ops.empty()) {
    // No collection holds a variable, yet the graph may have some: then every variable op,
    // since "nothing to check" would declare a model ready that nobody has set.
    for (Operation* op : GetDefaultGraph().operations()) {
      if (op->type() == "VariableV2") ops.push_back(op);
    }
  }
  // The op's id is its place in the graph's creation order; a variable *is* its op, so
  // equal ids are the same variable however many handles name it.
  std::sort(ops.begin(), ops.end(),
            [](const Operation* a, const Operation* b) { return a->id() < b->id(); });
  ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
  std::vector<Output> refs;
  for (Operation* op : ops) refs.push_back(op->output(0));
  Graph& g = ops.empty() ? GetDefaultGraph() : *ops.front()->graph();
  return g.AddOperation("ReportUninitializedVariables", "report_uninitialized_variables", refs)
      ->output(0);
}

}  // namespace mts
