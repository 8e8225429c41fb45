// python_beside: the C++ half of chapter 07's "TF1 Python beside C++" blocks. Each block of
// the chapter cuts one `[mts:pair-NAME]` region out of this file (docs/conf.py, `beside`),
// and this test runs them all over real gRPC servers of one process (a ps and a worker on
// 127.0.0.1), so a listed call that stops compiling or working fails the build.
// docs/python_beside_test.py checks each pair's names against the names page.
#include <stdlib.h>

#include <cstdio>
#include <memory>
#include <string>

#include "chapters/python_beside_support.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/graph.h"
#include "src/01_session/learning/gradient_descent_optimizer.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/03_hooked/hooks/stop_at_step_hook.h"
#include "src/06_monitored/monitored_session_scope.h"
#include "src/06_monitored/monitored_training_session.h"
#include "src/07_distributed/cluster_spec.h"
#include "src/07_distributed/replica_device_setter.h"
#include "src/07_distributed/server.h"

namespace {

using namespace mts;
using python_beside::Expect;
using python_beside::failures;
using python_beside::FreshDir;

void OneWorkerOnePs() {
  const std::string checkpoint_dir = FreshDir();
  // The ps task, in this process, on a port the system picks.
  Server ps_server(ClusterSpec::FromFlag("ps=127.0.0.1:0"), "ps", 0);
  const std::string ps_address = "127.0.0.1:" + std::to_string(ps_server.port());
  const std::string worker_address = "127.0.0.1:0";  // Port 0: the system picks one.
  const std::string job_name = "worker";
  const int task_index = 0;

  // [mts:pair-cluster-server]
  ClusterSpec cluster({{"ps", {ps_address}}, {"worker", {worker_address}}});
  Server server(cluster, job_name, task_index);  // Started: serves this task's address.
  if (job_name == "ps") server.Join();           // A ps serves its variables until killed.
  // [mts:pair-cluster-server-end]

  Graph graph;
  DefaultGraphScope as_default(graph);
  Variable w;
  Operation* train_op = nullptr;
  // [mts:pair-replica-device-setter]
  {
    ReplicaDeviceSetter on_ps(cluster.num_tasks("ps"));  // Until the end of this scope:
    w = Variable(Tensor::Scalar(0.0f), "w");             // lives on /job:ps/task:0.
    Variable global_step = GetOrCreateGlobalStep();
    Output loss = Square(Sub(w.value(), Constant(3.0f)), "loss");
    train_op = GradientDescentOptimizer(0.25).Minimize(loss, global_step);
  }
  // [mts:pair-replica-device-setter-end]

  float w_value = 0;
  // [mts:pair-is-chief]
  MonitoredTrainingSessionOptions options;
  options.master = server.target();      // "grpc://127.0.0.1:<port>": a RemoteSession.
  options.is_chief = (task_index == 0);  // The chief initialises or restores; others wait.
  options.checkpoint_dir = checkpoint_dir;
  options.hooks = {std::make_shared<StopAtStepHook>(std::nullopt, /*last_step=*/20)};
  options.stop_on_signals = false;  // mts's own option; TensorFlow has no signal handling.
  std::unique_ptr<MonitoredSession> session = MonitoredTrainingSession(options);
  WithMonitoredSession(*session, [&](MonitoredSession& sess) {
    while (!sess.ShouldStop()) {
      w_value = sess.Run({w.value()}, {}, {train_op})[0].scalar<float>();  // w is on the ps.
    }
  });
  // [mts:pair-is-chief-end]
  Expect(w_value > 2.99f && w_value < 3.01f, "w on the ps did not reach 3");
  Expect(ps_server.store().num_variables() > 0, "no variable lives on the ps");
  std::optional<std::string> latest = LatestCheckpoint(checkpoint_dir);
  Expect(latest && *latest == checkpoint_dir + "/model.ckpt-20", "no checkpoint at step 20");
}

}  // namespace

int main() {
  OneWorkerOnePs();
  if (failures == 0) std::printf("python_beside: every pair of chapter 07 works\n");
  return failures == 0 ? 0 : 1;
}
