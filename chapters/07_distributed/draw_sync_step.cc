// draw_sync_step.cc: chapter 07's picture of one synchronous step, drawn from a real one.
// Starts a ps task in this process, builds a one-variable model with SyncReplicasOptimizer
// (two replicas, both aggregated), and runs one step as a job does: the chief's train op
// and a worker's in two threads, each feeding its own gradient, while the chief's queue
// runner's op runs in a third. Each run is traced (RunOptions kFullTrace), and the picture
// shows the ops of the synchronous protocol in the order each run executed them, with the
// values the run produced: the mean the chief took, the step it put in the tokens, the
// local step each worker took. No address, port or time is printed, so the book's build
// draws the same picture every time; the program fails if the step did not add up.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <set>
#include <string>
#include <vector>

#include "src/01_session/array_ops.h"
#include "src/01_session/graph.h"
#include "src/01_session/learning/gradient_descent_optimizer.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/07_distributed/cluster_spec.h"
#include "src/07_distributed/remote_session.h"
#include "src/07_distributed/replica_device_setter.h"
#include "src/07_distributed/server.h"
#include "src/07_distributed/sync_replicas/sync_replicas_optimizer.h"

namespace {

// The ops of the protocol a run executed, in its order (the rest is ordinary arithmetic).
std::vector<std::string> ProtocolOps(const mts::Graph& graph, const mts::RunMetadata& metadata) {
  static const std::set<std::string> kShown = {"AccumulatorApplyGradient",
                                               "DequeueToken",
                                               "AccumulatorTakeGradient",
                                               "ApplyGradientDescent",
                                               "AssignAdd",
                                               "EnqueueTokens",
                                               "Assign"};
  std::vector<std::string> ops;
  for (const mts::NodeExecStats& stats : metadata.step_stats) {
    const mts::Operation* op = graph.GetOperationByName(stats.node_name);
    if (kShown.count(op->type())) ops.push_back(op->type());
  }
  return ops;
}

void Lane(const char* id, const char* title, const std::vector<std::string>& ops,
          const std::vector<std::string>& notes) {
  std::printf("  subgraph cluster_%s {\n    label=\"%s\"; style=rounded;\n", id, title);
  for (size_t i = 0; i < ops.size(); ++i) {
    std::printf("    %s%zu [label=\"%s%s\"];\n", id, i, ops[i].c_str(),
                i < notes.size() && !notes[i].empty() ? ("\\n" + notes[i]).c_str() : "");
    if (i > 0)
      std::printf("    %s%zu -> %s%zu [style=dotted, arrowhead=none];\n", id, i - 1, id, i);
  }
  std::printf("  }\n");
}

}  // namespace

int main() {
  setenv("MTS_MIN_LOG_LEVEL", "1", /*overwrite=*/0);  // The picture alone on stdout.
  mts::Server ps(mts::ClusterSpec::FromFlag("ps=127.0.0.1:0"), "ps", 0);
  mts::ClusterSpec cluster({{"ps", {"127.0.0.1:" + std::to_string(ps.port())}},
                            {"worker", {"127.0.0.1:0", "127.0.0.1:0"}}});

  // [mts:draw-sync-model]
  mts::Graph graph;
  mts::DefaultGraphScope as_default(graph);
  mts::GradientDescentOptimizer sgd(0.5);
  mts::SyncReplicasOptimizer sync(sgd, /*replicas_to_aggregate=*/2, /*total_num_replicas=*/2);
  mts::Output gradient = mts::Placeholder(mts::DataType::kFloat, mts::TensorShape{}, "gradient");
  mts::Variable w, global_step;
  mts::Operation* train_op = nullptr;
  {
    mts::ReplicaDeviceSetter on_ps(1);
    w = mts::Variable(mts::Tensor::Scalar(0.0f), "w");
    global_step = mts::GetOrCreateGlobalStep();
    train_op = sync.ApplyGradients({{gradient, w}}, global_step);  // Each worker feeds its own.
  }
  mts::Operation* sync_op = sync.GetChiefQueueRunner()->enqueue_ops()[0];
  // [mts:draw-sync-model-end]

  mts::RemoteSession chief(&graph, mts::SessionOptions(), cluster);
  mts::RemoteSession worker(&graph, mts::SessionOptions(), cluster);
  chief.Run({}, {}, {mts::GlobalVariablesInitializer(), mts::LocalVariablesInitializer()});
  chief.Run({}, {}, {sync.chief_init_op()});  // No initial tokens: both must wait.
  worker.Run({}, {}, {mts::LocalVariablesInitializer(), sync.local_step_init_op()});

  mts::RunOptions traced;
  traced.trace_level = mts::RunOptions::TraceLevel::kFullTrace;
  mts::RunMetadata chief_run, worker_run, sync_run;
  auto chief_step = std::async(std::launch::async, [&] {
    chief.Run({}, {{gradient, mts::Tensor::Scalar(1.0f)}}, {train_op}, traced, &chief_run);
  });
  auto worker_step = std::async(std::launch::async, [&] {
    worker.Run({}, {{gradient, mts::Tensor::Scalar(3.0f)}}, {train_op}, traced, &worker_run);
  });
  chief.Run({}, {}, {sync_op}, traced, &sync_run);  // The chief's queue runner, once.
  chief_step.get();
  worker_step.get();

  const float w_after = worker.Run(w.value()).scalar<float>();
  const int64_t step_after = worker.Run(global_step.value()).scalar<int64_t>();
  const int64_t chief_local = chief.Run(sync.local_step().value()).scalar<int64_t>();
  const int64_t worker_local = worker.Run(sync.local_step().value()).scalar<int64_t>();
  if (std::fabs(w_after - (0.0f - 0.5f * (1.0f + 3.0f) / 2)) > 1e-6f || step_after != 1 ||
      chief_local != 1 || worker_local != 1) {
    std::fprintf(stderr, "draw_sync_step: the step did not add up: w %g, global step %lld\n",
                 w_after, static_cast<long long>(step_after));
    return 1;
  }

  const std::vector<std::string> chief_ops = ProtocolOps(graph, chief_run);
  const std::vector<std::string> worker_ops = ProtocolOps(graph, worker_run);
  const std::vector<std::string> sync_ops = ProtocolOps(graph, sync_run);
  const std::vector<std::string> train = {"AccumulatorApplyGradient", "DequeueToken", "Assign"};
  const std::vector<std::string> aggregate = {"AccumulatorTakeGradient", "ApplyGradientDescent",
                                              "AssignAdd", "EnqueueTokens"};
  if (chief_ops != train || worker_ops != train || sync_ops != aggregate) {
    std::fprintf(stderr, "draw_sync_step: the runs executed other protocol ops than drawn\n");
    return 1;
  }
  auto text = [](const char* format, double value) {
    char buffer[96];
    std::snprintf(buffer, sizeof buffer, format, value);
    return std::string(buffer);
  };
  std::printf("digraph sync_step {\n");
  // At most 8.7 in wide: the book's text column (docs/browser_test.py checks it).
  std::printf(
      "  rankdir=TB; size=\"8.7,20\"; node [shape=box, fontname=\"Helvetica\", fontsize=10];\n");
  std::printf("  edge [fontname=\"Helvetica\", fontsize=9];\n");
  Lane("chief", "worker 0, the chief: train op", chief_ops,
       {"gradient 1, local step 0", "waits for a token",
        text("local step := %g", static_cast<double>(chief_local))});
  Lane("worker", "worker 1: train op", worker_ops,
       {"gradient 3, local step 0", "waits for a token",
        text("local step := %g", static_cast<double>(worker_local))});
  Lane("runner", "the chief's queue runner: one sync op", sync_ops,
       {text("waits for 2; their mean %g", (1.0 + 3.0) / 2), text("w := %g", w_after),
        text("global step := %g", static_cast<double>(step_after)),
        text("2 tokens holding %g,\\nsent after ApplyUpdates", static_cast<double>(step_after))});
  std::printf(
      "  ps [style=filled, fillcolor=\"#e8f0fe\", label=\"job ps, task 0\\n"
      "accumulator w/grad_accum\\ntoken queue sync_token_q\\nvariables w, global_step\"];\n");
  std::printf("  chief0 -> ps [label=\"1. RunResourceOp\"]; worker0 -> ps [label=\"1.\"];\n");
  std::printf("  ps -> runner0 [label=\"2. the mean\", style=dashed];\n");
  std::printf("  runner%zu -> ps [label=\"3. ApplyUpdates,\\n4. tokens\", color=\"#1a73e8\"];\n",
              sync_ops.size() - 1);
  std::printf("  ps -> chief1 [label=\"5. token\", style=dashed];\n");
  std::printf("  ps -> worker1 [label=\"5. token\", style=dashed];\n");
  std::printf("}\n");
  return 0;
}
