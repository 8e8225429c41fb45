// worker_waits: what a worker logs while it waits for the chief: a parameter server and a
// worker in this process, the spirals model placed on the ps, no chief. The worker's
// SessionManager asks the ps which variables are still unset and says so. Time is a fake
// clock, so the waits take no time. Chapter 07 shows this program's output, produced during
// the book's build.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "examples/spirals_model.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/graph.h"
#include "src/01_session/learning/adam_optimizer.h"
#include "src/01_session/learning/loss_ops.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/training_util.h"
#include "src/02_chief_worker/scaffold.h"
#include "src/02_chief_worker/session_manager.h"
#include "src/07_distributed/cluster_spec.h"
#include "src/07_distributed/replica_device_setter.h"
#include "src/07_distributed/server.h"
#include "src/platform/errors.h"
#include "src/platform/logging.h"
#include "tests/testing/fake_clock.h"

int main() {
  using namespace mts;
  // The library's log lines (times, ports) go to the capture below, not to the output: the
  // chapter shows the one line a user watches for. Read once, at the first log line.
  ::setenv("MTS_MIN_LOG_LEVEL", "2", /*overwrite=*/1);
  Server ps(ClusterSpec::FromFlag("ps=127.0.0.1:0"), "ps", 0);
  const ClusterSpec cluster = ClusterSpec::FromFlag(
      "ps=127.0.0.1:" + std::to_string(ps.port()) + ";worker=127.0.0.1:0");
  Server worker(cluster, "worker", 0);

  Graph graph;
  DefaultGraphScope as_default(graph);
  Output x = Placeholder(DataType::kFloat, {TensorShape::kUnknownDim, 2}, "x");
  Output labels = Placeholder(DataType::kInt64, {TensorShape::kUnknownDim}, "labels");
  {
    ReplicaDeviceSetter on_ps(cluster.num_tasks("ps"));
    Output loss = ReduceMean(SparseSoftmaxCrossEntropyWithLogits(labels, SpiralsLogits(x)),
                             std::nullopt, false, "loss");
    AdamOptimizer(0.02).Minimize(loss, GetOrCreateGlobalStep());
  }
  Scaffold scaffold;
  scaffold.Finalize();

  FakeClock clock(FakeClock::Mode::kAutoAdvance);
  SessionManagerOptions options = SessionManagerOptionsFor(scaffold, &clock);
  ScopedLogCapture log;
  try {
    SessionManager(options).WaitForSession(worker.target(), /*max_wait_secs=*/30);
  } catch (const DeadlineExceededError&) {
    // Expected: nobody initialises the model here.
  }
  for (const std::string& line : log.lines()) {
    const size_t at = line.find("Worker still waiting for");
    if (at != std::string::npos) {
      std::printf("%s\n", line.substr(at).c_str());
      return 0;
    }
  }
  std::printf("the worker logged no wait\n");
  return 1;
}
