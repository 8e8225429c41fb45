// draw_cluster.cc: chapter 07's picture of a cluster, drawn from a real one. Starts two ps
// tasks in this process, places a small model's variables on them with ReplicaDeviceSetter,
// runs one training step through a RemoteSession and prints graphviz: the worker, each ps
// task with the variables the placement put there, and the RPCs of that step, in order.
// The number of RPCs is measured (RemoteSession::num_rpcs), never assumed; the program
// fails if it is not one read and one update per ps task the step uses. No address, port
// or time is printed, so the book's build draws the same picture every time.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "src/01_session/array_ops.h"
#include "src/01_session/graph.h"
#include "src/01_session/learning/gradient_descent_optimizer.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/session.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/07_distributed/cluster_spec.h"
#include "src/07_distributed/remote_session.h"
#include "src/07_distributed/replica_device_setter.h"
#include "src/07_distributed/server.h"

namespace {

std::string Address(const mts::Server& server) {
  return "127.0.0.1:" + std::to_string(server.port());
}

}  // namespace

int main() {
  setenv("MTS_MIN_LOG_LEVEL", "1", /*overwrite=*/0);  // The picture alone on stdout.
  // Two ps tasks, each on a port the system picks.
  mts::Server ps0(mts::ClusterSpec::FromFlag("ps=127.0.0.1:0"), "ps", 0);
  mts::Server ps1(mts::ClusterSpec::FromFlag("ps=127.0.0.1:0"), "ps", 0);
  mts::ClusterSpec cluster({{"ps", {Address(ps0), Address(ps1)}}, {"worker", {"127.0.0.1:0"}}});

  // [mts:draw-cluster-model]
  mts::Graph graph;
  mts::DefaultGraphScope as_default(graph);
  mts::Operation* train_op = nullptr;
  {
    mts::ReplicaDeviceSetter on_ps(cluster.num_tasks("ps"));  // Round robin over the tasks.
    mts::Variable w(mts::Tensor::Scalar(0.0f), "w");
    mts::Variable b(mts::Tensor::Scalar(0.0f), "b");
    mts::Variable global_step = mts::GetOrCreateGlobalStep();
    mts::Output prediction = mts::Add(mts::Mul(w.value(), mts::Constant(2.0f)), b.value());
    mts::Output loss = mts::Square(mts::Sub(prediction, mts::Constant(5.0f)), "loss");
    train_op = mts::GradientDescentOptimizer(0.1).Minimize(loss, global_step);
  }
  mts::Operation* init = mts::GlobalVariablesInitializer();
  mts::RemoteSession session(&graph, mts::SessionOptions(), cluster);
  session.Run({}, {}, {init});
  const int64_t before = session.num_rpcs();
  session.Run({}, {}, {train_op});
  const int64_t rpcs_per_step = session.num_rpcs() - before;
  // [mts:draw-cluster-model-end]

  std::map<int, std::vector<std::string>> on_task;
  for (const mts::VariablePlacement& placed :
       graph.GetCollection<mts::VariablePlacement>(mts::kPsPlacementCollection)) {
    on_task[placed.ps_task].push_back(placed.variable);
  }
  const int64_t expected = 2 * static_cast<int64_t>(on_task.size());
  if (rpcs_per_step != expected) {
    std::fprintf(stderr, "draw_cluster: one step made %lld RPCs, expected %lld\n",
                 static_cast<long long>(rpcs_per_step), static_cast<long long>(expected));
    return 1;
  }

  std::printf("digraph cluster {\n");
  std::printf("  rankdir=TB; node [shape=box, fontname=\"Helvetica\", fontsize=11];\n");
  std::printf("  edge [fontname=\"Helvetica\", fontsize=10];\n");
  // What the picture is: mts's own protocol, not TensorFlow's (the chapter's difference).
  std::printf(
      "  labelloc=t; fontname=\"Helvetica\"; fontsize=11; label=\"One step in mts's "
      "protocol (RemoteSession). TensorFlow 1.x partitions the graph instead:\\nRunGraph "
      "on each task's part, RecvTensor per tensor, the update ops run on the ps.\\n\\n\";\n");
  std::printf("  worker [label=\"job worker, task 0 (the chief)\\nholds the graph; runs the "
              "step's ops locally\\n%lld RPCs in one step, measured\"];\n",
              static_cast<long long>(rpcs_per_step));
  for (const auto& [task, variables] : on_task) {
    std::string names;
    for (const std::string& name : variables) names += "\\n" + name;
    std::printf("  ps%d [label=\"job ps, task %d\\nholds:%s\", style=filled, "
                "fillcolor=\"#e8f0fe\"];\n",
                task, task, names.c_str());
  }
  for (const auto& [task, variables] : on_task) {
    std::printf("  worker -> ps%d [label=\"1. ReadVariables\\n(before the step)\"];\n", task);
    std::printf("  ps%d -> worker [style=dashed, label=\"values\"];\n", task);
    std::printf("  worker -> ps%d [label=\"2. ApplyUpdates\\n(after the step)\", "
                "color=\"#1a73e8\"];\n",
                task);
  }
  std::printf("}\n");
  return 0;
}
