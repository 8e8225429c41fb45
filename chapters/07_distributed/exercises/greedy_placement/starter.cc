// Starter for the greedy placement exercise.
#include <vector>

#include "chapters/07_distributed/exercises/greedy_placement/greedy_placement.h"
#include "src/platform/errors.h"
#include "src/01_session/variables.h"
#include "src/07_distributed/replica_device_setter.h"

namespace mts {

// [mts:exercise-todo]
std::map<std::string, int> PlaceGreedily(Graph& graph, int ps_tasks) {
  // TODO: check ps_tasks; count the bytes already placed on each task (PsPlacement(graph),
  // a variable's bytes are shape().num_elements() * DataTypeSize(dtype())); then give each
  // unplaced variable of GlobalVariables(&graph), in order, to the least-loaded task and
  // record it with graph.AddToCollection(kPsPlacementCollection, VariablePlacement{...}).
  // This starter deals round-robin, like ReplicaDeviceSetter.
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
