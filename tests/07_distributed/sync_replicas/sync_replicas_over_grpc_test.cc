// Synchronous replicas over gRPC, the ways a job used to hang: a chief without the hook
// (the workers wait for tokens that never come, and now say so), and a Close after
// training (the chief's queue runner waits in a take; Close cancels it instead of waiting
// out the grace period).
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/graph.h"
#include "src/01_session/learning/gradient_descent_optimizer.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/06_monitored/monitored_training_session.h"
#include "src/07_distributed/cluster_spec.h"
#include "src/07_distributed/remote_session.h"  // Links the grpc:// session factory.
#include "src/07_distributed/replica_device_setter.h"
#include "src/07_distributed/server.h"
#include "src/07_distributed/sync_replicas/sync_replicas_optimizer.h"
#include "src/platform/logging.h"
#include "tests/testing/log_latch.h"

namespace mts {
namespace {

using ::testing::HasSubstr;

// One ps, and a Server per worker.
struct Cluster {
  explicit Cluster(int num_workers) {
    const std::string ps_address = ps.target().substr(std::string("grpc://").size());
    for (int i = 0; i < num_workers; ++i) {
      workers.push_back(std::make_unique<Server>(
          ClusterSpec({{"ps", {ps_address}},
                       {"worker", std::vector<std::string>(num_workers, "127.0.0.1:0")}}),
          "worker", i));
    }
  }
  Server ps{ClusterSpec({{"ps", {std::string("127.0.0.1:0")}}}), "ps", 0};
  std::vector<std::unique_ptr<Server>> workers;
};

// A task's model, w pulled by a constant gradient; `with_hook` false leaves the hook out.
struct Task {
  Task(int id, int replicas, const std::string& target, bool with_hook,
       double stop_grace_period_secs = 120) {
    {
      ReplicaDeviceSetter on_ps(1);
      global_step = CreateGlobalStep();
      w = Variable(Tensor::Scalar(0.0f), "w");
      sync = std::make_unique<SyncReplicasOptimizer>(
          sgd, replicas, replicas, SyncReplicasOptions{.wait_warning_secs = 0.05});
      train_op = sync->ApplyGradients({{Constant(1.0f), w}}, global_step);
      put_token = sync->GetInitTokensOp(1);
    }
    MonitoredTrainingSessionOptions options;
    options.master = target;
    options.is_chief = id == 0;
    if (with_hook) options.hooks = {sync->MakeSessionRunHook(id == 0)};
    options.log_step_count_steps = 0;
    options.stop_on_signals = false;
    options.stop_grace_period_secs = stop_grace_period_secs;
    session = MonitoredTrainingSession(options);
  }
  Graph graph;
  DefaultGraphScope scope{graph};
  GradientDescentOptimizer sgd{0.5};
  Variable global_step, w;
  std::unique_ptr<SyncReplicasOptimizer> sync;
  Operation* train_op = nullptr;
  Operation* put_token = nullptr;
  std::unique_ptr<MonitoredSession> session;
};

// The chief runs without the hook: no tokens are ever put. The worker's step says, after
// wait_warning_secs, what it waits for and names the chief's hook; a token lets it go on.
TEST(SyncReplicasOverGrpcTest, WorkerWithoutTheChiefsHookSaysWhatItWaitsFor) {
  Cluster cluster(2);
  Task chief(0, 2, cluster.workers[0]->target(), /*with_hook=*/false);
  Task worker(1, 2, cluster.workers[1]->target(), /*with_hook=*/true);
  LogLatch latch("has waited");
  auto step = std::async(std::launch::async, [&] { worker.session->Run(worker.train_op); });
  EXPECT_THAT(latch.Wait(),
              AllOf(HasSubstr("sync_token_q"), HasSubstr("MakeSessionRunHook(is_chief=true)")));
  chief.session->Run(chief.put_token);  // What the chief's hook would have done.
  step.get();
  EXPECT_EQ(worker.session->Run(worker.sync->local_step().value()).scalar<int64_t>(), 0);
  worker.session->Close();
  chief.session->Close();
}

// Two replicas train two steps; then the worker stops, and the chief's queue runner waits in
// a take for gradients that will never come. The chief's Close cancels that wait: it does
// not wait out its (here endless) grace period, nor say threads were left running.
TEST(SyncReplicasOverGrpcTest, CloseAfterTrainingDoesNotWaitTheGracePeriod) {
  Cluster cluster(2);
  Task chief(0, 2, cluster.workers[0]->target(), true, /*stop_grace_period_secs=*/1e9);
  Task worker(1, 2, cluster.workers[1]->target(), true);
  for (int i = 0; i < 2; ++i) {
    auto a = std::async(std::launch::async, [&] { chief.session->Run(chief.train_op); });
    worker.session->Run(worker.train_op);
    a.get();
  }
  EXPECT_EQ(worker.session->Run(worker.global_step.value()).scalar<int64_t>(), 1);
  worker.session->Close();
  ScopedLogCapture log;
  chief.session->Close();
  EXPECT_FALSE(log.Contains("threads still running"));
}

}  // namespace
}  // namespace mts
