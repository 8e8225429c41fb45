#include "src/07_distributed/replica_device_setter.h"

#include <set>

#include "src/platform/errors.h"
#include "src/01_session/variables.h"

namespace mts {

ReplicaDeviceSetter::ReplicaDeviceSetter(int ps_tasks, Graph* graph)
    : graph_(graph != nullptr ? graph : &GetDefaultGraph()),
      ps_tasks_(ps_tasks),
      first_op_(graph_->num_ops()) {
  if (ps_tasks < 1) {
    throw ValueError("ReplicaDeviceSetter needs at least one ps task, got " +
                     std::to_string(ps_tasks) +
                     "; pass the number of ps tasks of the cluster (cluster.num_tasks(\"ps\")).");
  }
}

ReplicaDeviceSetter::~ReplicaDeviceSetter() {
  try {
    Place();
  } catch (...) {
    // A finalized graph: Place() was called explicitly before, nothing left to do.
  }
}

void ReplicaDeviceSetter::Place() {
  std::set<std::string> local;
  for (const Variable& v : LocalVariables(graph_)) local.insert(v.name());
  const std::map<std::string, int> placed = PsPlacement(*graph_);
  const std::vector<Operation*> ops = graph_->operations();
  for (size_t i = static_cast<size_t>(first_op_); i < ops.size(); ++i) {
    const Operation* op = ops[i];
    if (op->type() != "VariableV2" || local.count(op->name()) || placed.count(op->name())) {
      continue;
    }
    graph_->AddToCollection(kPsPlacementCollection, VariablePlacement{op->name(), next_task_});
    next_task_ = (next_task_ + 1) % ps_tasks_;
  }
  first_op_ = static_cast<int>(ops.size());
}

std::map<std::string, int> PsPlacement(const Graph& graph) {
  std::map<std::string, int> placement;
  for (const VariablePlacement& p :
       graph.GetCollection<VariablePlacement>(kPsPlacementCollection)) {
    placement[p.variable] = p.ps_task;
  }
  for (const ColocatedPlacement& c :
       graph.GetCollection<ColocatedPlacement>(kPsColocationCollection)) {
    auto it = placement.find(c.variable);
    if (it != placement.end()) placement[c.op] = it->second;
  }
  return placement;
}

void ColocateWithVariable(const Operation& op, const Operation& variable) {
  op.graph()->AddToCollection(kPsColocationCollection,
                              ColocatedPlacement{op.name(), variable.name()});
}

std::string DeviceOf(const Graph& graph, const std::string& variable) {
  const std::map<std::string, int> placement = PsPlacement(graph);
  auto it = placement.find(variable);
  return it == placement.end() ? "" : "/job:ps/task:" + std::to_string(it->second);
}

}  // namespace mts
