// greedy_placement.h: chapter 07's exercise: place variables on the ps tasks by size.
//
//   ReplicaDeviceSetter   deals variables round-robin: task 0, 1, 0, 1...
//   PlaceGreedily         <-- this exercise: each variable goes to the least-loaded task
//
// Round-robin ignores sizes: a model with one big embedding and many small biases can load
// one parameter server with almost all the bytes, and that server's network link becomes
// the bottleneck of every step. TensorFlow's GreedyLoadBalancingStrategy instead gives each
// variable, in creation order, to the task holding the fewest bytes so far.
//
// The decisions are about what must not vary. Every worker builds its own graph and places
// it on its own, so the placement must be a function of the graph alone: the order of the
// variables, a tie between two equally loaded tasks. And some variables arrive placed
// already (by a ReplicaDeviceSetter scope, or a model built for a bigger cluster): they
// stay where they are and their bytes count, and one placed on a task this cluster does
// not have is a mistake to report now, before any worker asks a missing server for it.
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
/// \throws ValueError if ps_tasks < 1, or naming the variable and its task if a variable
///   is already placed on a task that does not exist (>= ps_tasks), before anything is
///   placed.
std::map<std::string, int> PlaceGreedily(Graph& graph, int ps_tasks);
// [mts:greedy-placement-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_07_DISTRIBUTED_EXERCISES_GREEDY_PLACEMENT_GREEDY_PLACEMENT_H_
