// replica_device_setter.h: puts the model's variables on the parameter servers.
//
// Stage 07, while the model is built: when the scope closes, the global variables made in
// it are dealt to the ps tasks round-robin in creation order, each recorded in the graph
// collection kPsPlacementCollection, which RemoteSession reads; local variables and every
// other op stay on the worker. Make it before the model (the optimizer included: slots are
// variables too); build the graph from one thread.
//
// Example:
//   { ReplicaDeviceSetter on_ps(/*ps_tasks=*/1);
//     ... build the model, the global step and the train op ... }   // now on /job:ps/task:0
//
// TensorFlow: tf.train.replica_device_setter (tensorflow/python/training/device_setter.py).
#ifndef MTS_SRC_07_DISTRIBUTED_REPLICA_DEVICE_SETTER_H_
#define MTS_SRC_07_DISTRIBUTED_REPLICA_DEVICE_SETTER_H_

#include <map>
#include <string>

#include "src/01_session/graph.h"

namespace mts {

/// The graph collection that holds VariablePlacement items.
inline constexpr const char kPsPlacementCollection[] = "ps_placement";

/// Where one variable lives: task `ps_task` of job "ps".
struct VariablePlacement {
  std::string variable;  ///< The VariableV2 op's name.
  int ps_task = 0;       ///< Its ps task index.
};

/// The graph collection that holds ColocatedPlacement items.
inline constexpr const char kPsColocationCollection[] = "ps_colocation";

/// An op that lives wherever a variable lives: a shared resource (a gradient accumulator, a
/// token queue) beside the variable it serves.
struct ColocatedPlacement {
  std::string op;        ///< The op's name.
  std::string variable;  ///< The VariableV2 op's name it follows.
};

/// Records that `op` lives on the ps task of `variable`, once that is placed (or on the
/// worker, if the variable stays there). (TensorFlow: `with ops.device(var.device):`.)
void ColocateWithVariable(const Operation& op, const Operation& variable);

/// Places the global variables made during its lifetime on the ps tasks, round-robin.
class ReplicaDeviceSetter {
 public:
  /// Starts a placement scope on `graph` (the default graph if null) over `ps_tasks` tasks.
  /// \throws ValueError if ps_tasks < 1.
  explicit ReplicaDeviceSetter(int ps_tasks, Graph* graph = nullptr);
  /// Places the variables made since construction (Place()).
  ~ReplicaDeviceSetter();
  ReplicaDeviceSetter(const ReplicaDeviceSetter&) = delete;
  ReplicaDeviceSetter& operator=(const ReplicaDeviceSetter&) = delete;

  /// Places every global variable made since construction (or the last Place()) that is not
  /// placed yet. \throws RuntimeError if the graph is finalized.
  void Place();

 private:
  Graph* graph_;
  int ps_tasks_;
  int next_task_ = 0;
  int first_op_;
};

/// The ps task of every placed variable of `graph`, by VariableV2 op name, and of every op
/// colocated with a placed variable, by its name.
std::map<std::string, int> PsPlacement(const Graph& graph);

/// The device string of a placed variable ("/job:ps/task:0") or "" for one on the worker.
std::string DeviceOf(const Graph& graph, const std::string& variable);

}  // namespace mts

#endif  // MTS_SRC_07_DISTRIBUTED_REPLICA_DEVICE_SETTER_H_
