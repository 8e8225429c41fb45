// Starter for the greedy placement exercise.
#include <vector>

#include "chapters/07_distributed/exercises/greedy_placement/greedy_placement.h"
#include "src/01_session/variables.h"
#include "src/07_distributed/replica_device_setter.h"
#include "src/platform/errors.h"

namespace mts {

// [mts:exercise-todo]
std::map<std::string, int> PlaceGreedily(Graph& graph, int ps_tasks) {
  // TODO: the contract is in the header. A variable's bytes are
  // shape().num_elements() * DataTypeSize(dtype()); PsPlacement(graph) is what is placed
  // already, and graph.AddToCollection(kPsPlacementCollection, VariablePlacement{...})
  // places one more. Decide what keeps every worker's answer the same, what the variables
  // placed before you mean for the loads, and what to do with one placed on a task that
  // this cluster does not have. This starter deals round-robin, like ReplicaDeviceSetter.
  int next = 0;
  const std::map<std::string, int> placed = PsPlacement(graph);
  for (const Variable& v : GlobalVariables(&graph)) {
    if (placed.count(v.name())) continue;
    graph.AddToCollection(kPsPlacementCollection, VariablePlacement{v.name(), next});
    next = (next + 1) % ps_tasks;
  }
  return PsPlacement(graph);
}
// [mts:exercise-todo-end]

}  // namespace mts
