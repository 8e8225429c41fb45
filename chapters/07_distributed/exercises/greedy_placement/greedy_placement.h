// greedy_placement.h: chapter 07's exercise: place variables on the ps tasks by size.
//
//   ReplicaDeviceSetter   deals variables round-robin: task 0, 1, 0, 1...
//   PlaceGreedily         <-- this exercise: each variable goes to the least-loaded task
//
// Round-robin ignores sizes: a model with one big embedding and many small biases can load
// one parameter server with almost all the bytes, and that server's network link becomes
// the bottleneck of every step. TensorFlow's GreedyLoadBalancingStrategy instead gives each
// variable, in creation order, to the task holding the fewest bytes so far.
#ifndef MTS_CHAPTERS_07_DISTRIBUTED_EXERCISES_GREEDY_PLACEMENT_GREEDY_PLACEMENT_H_
#define MTS_CHAPTERS_07_DISTRIBUTED_EXERCISES_GREEDY_PLACEMENT_GREEDY_PLACEMENT_H_

#include <map>
#include <string>

#include "src/01_session/graph.h"

namespace mts {

// [mts:greedy-placement-api]
/// Places every global variable of `graph` not yet placed (see replica_device_setter.h), in
/// creation order, on the ps task with the fewest bytes placed so far (ties: the lowest
/// task index), counting the bytes of variables already placed; records each placement in
/// kPsPlacementCollection and returns the whole placement (PsPlacement(graph)).
/// \throws ValueError if ps_tasks < 1.
std::map<std::string, int> PlaceGreedily(Graph& graph, int ps_tasks);
// [mts:greedy-placement-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_07_DISTRIBUTED_EXERCISES_GREEDY_PLACEMENT_GREEDY_PLACEMENT_H_
