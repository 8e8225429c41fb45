// The greedy placement exercise of chapter 07: PlaceGreedily(), so that
// greedy_placement_test passes. The part to write lies between the
// `[mts:lab greedy_placement]` markers; the comment outside them says what to decide.
#include <string>
#include <vector>

#include "chapters/07_distributed/exercises/greedy_placement/greedy_placement.h"
#include "src/01_session/variables.h"
#include "src/07_distributed/replica_device_setter.h"
#include "src/platform/errors.h"

namespace mts {

// [mts:exercise-todo]
std::map<std::string, int> PlaceGreedily(Graph& graph, int ps_tasks) {
  // TODO(student): the contract is in the header. A variable's bytes are
  // shape().num_elements() * DataTypeSize(dtype()); GlobalVariables(&graph) lists the
  // variables, PsPlacement(graph) is what is placed already, and
  // graph.AddToCollection(kPsPlacementCollection, VariablePlacement{...}) places one more.
  // Decide what keeps every worker's answer the same, what the variables placed before you
  // mean for the loads, and what to do with one placed on a task that this cluster does
  // not have. Dealing the variables round-robin, as ReplicaDeviceSetter does, ignores
  // their sizes.
  // [mts:lab greedy_placement]
  if (ps_tasks < 1) throw ValueError("PlaceGreedily needs at least one ps task");
  const std::map<std::string, int> placed = PsPlacement(graph);
  std::vector<int64_t> load(static_cast<size_t>(ps_tasks), 0);
  auto bytes = [](const Variable& v) {
    return v.shape().num_elements() * static_cast<int64_t>(DataTypeSize(v.dtype()));
  };
  std::vector<Variable> variables = GlobalVariables(&graph);
  for (const Variable& v : variables) {
    auto it = placed.find(v.name());
    if (it == placed.end()) continue;
    if (it->second >= ps_tasks) {
      // Every step would ask a server that does not exist; say so while the graph is built.
      throw ValueError("PlaceGreedily: variable " + v.name() + " is already placed on ps task " +
                       std::to_string(it->second) + ", but there are only " +
                       std::to_string(ps_tasks) + " ps tasks; build it for this cluster");
    }
    load[it->second] += bytes(v);
  }
  for (const Variable& v : variables) {
    if (placed.count(v.name())) continue;
    // Strictly less: a tie keeps the lowest index, so every worker picks the same task.
    int best = 0;
    for (int t = 1; t < ps_tasks; ++t) {
      if (load[t] < load[best]) best = t;
    }
    load[best] += bytes(v);
    graph.AddToCollection(kPsPlacementCollection, VariablePlacement{v.name(), best});
  }
  return PsPlacement(graph);
  // [mts:lab-end]
}
// [mts:exercise-todo-end]

}  // namespace mts
