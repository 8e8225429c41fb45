// TensorFlow's sync_replicas_optimizer_test.py, case by case: each TEST is named
// <TF test class>.<TF test method>. As there, every worker has a graph and a
// MonitoredTrainingSession of its own against an in-process cluster (two ps tasks, and a
// Server per worker); where TensorFlow sleeps until the chief's update lands, these wait
// for the tokens the update puts, a seam of the ps's token queue. TensorFlow's sparse
// variable is left out: mts has no IndexedSlices (the names page says so).
#include "src/07_distributed/sync_replicas/sync_replicas_optimizer.h"

#include <future>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/graph.h"
#include "src/01_session/learning/gradient_descent_optimizer.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/06_monitored/monitored_training_session.h"
#include "src/07_distributed/cluster_spec.h"
#include "src/07_distributed/remote_session.h"  // Links the grpc:// session factory.
#include "src/07_distributed/replica_device_setter.h"
#include "src/07_distributed/server.h"
#include "src/07_distributed/sync_replicas/sync_token_queue.h"
#include "src/platform/errors.h"
#include "tests/testing/expect_error.h"

namespace mts {
namespace {

using ::testing::HasSubstr;

// TensorFlow's create_local_cluster: num_ps parameter servers, a Server per worker.
struct LocalCluster {
  LocalCluster(int num_workers, int num_ps) {
    std::vector<std::string> ps_addresses;
    for (int i = 0; i < num_ps; ++i) {
      ps.push_back(
          std::make_unique<Server>(ClusterSpec({{"ps", {std::string("127.0.0.1:0")}}}), "ps", 0));
      ps_addresses.push_back(ps.back()->target().substr(std::string("grpc://").size()));
    }
    const std::vector<std::string> worker_addresses(num_workers, "127.0.0.1:0");
    for (int i = 0; i < num_workers; ++i) {
      workers.push_back(std::make_unique<Server>(
          ClusterSpec({{"ps", ps_addresses}, {"worker", worker_addresses}}), "worker", i));
    }
  }
  // Blocks until the token queue on ps `task` holds `n` tokens: the chief's update is done.
  void WaitForTokens(int task, int n) {
    std::shared_ptr<SharedResource> queue = ps[task]->resources().Find("sync_token_q");
    ASSERT_NE(queue, nullptr);
    static_cast<SyncTokenQueueResource&>(*queue).WaitForSize(n);
  }
  std::vector<std::unique_ptr<Server>> ps;
  std::vector<std::unique_ptr<Server>> workers;
};

// One worker's graph, optimizer, hook and session (TensorFlow's get_workers, one worker).
struct Worker {
  Worker(int worker_id, int num_workers, int replicas_to_aggregate, const std::string& target) {
    const bool is_chief = worker_id == 0;
    {
      ReplicaDeviceSetter on_ps(2);
      global_step = CreateGlobalStep();
      v0 = Variable(Tensor::Scalar(0.0f), "v0");
      v1 = Variable(Tensor::Scalar(1.0f), "v1");
      sync = std::make_unique<SyncReplicasOptimizer>(sgd, replicas_to_aggregate, num_workers);
      train_op = sync->ApplyGradients(
          {{Constant(0.1f + worker_id * 0.2f), v0}, {Constant(0.9f + worker_id * 0.2f), v1}},
          global_step);
    }
    MonitoredTrainingSessionOptions options;
    options.master = target;
    options.is_chief = is_chief;
    options.hooks = {sync->MakeSessionRunHook(is_chief, num_workers)};
    options.log_step_count_steps = 0;
    options.stop_on_signals = false;
    session = MonitoredTrainingSession(options);
  }
  void Step() { session->Run(train_op); }
  float Read(const Variable& v) { return session->Run(v.value()).scalar<float>(); }
  int64_t Step(const Variable& v) { return session->Run(v.value()).scalar<int64_t>(); }

  Graph graph;
  DefaultGraphScope scope{graph};
  GradientDescentOptimizer sgd{2.0};
  Variable global_step, v0, v1;
  std::unique_ptr<SyncReplicasOptimizer> sync;
  Operation* train_op = nullptr;
  std::unique_ptr<MonitoredSession> session;
};

std::vector<std::unique_ptr<Worker>> GetWorkers(int num_workers, int replicas_to_aggregate,
                                                LocalCluster& cluster) {
  std::vector<std::unique_ptr<Worker>> workers;
  for (int i = 0; i < num_workers; ++i) {
    workers.push_back(std::make_unique<Worker>(i, num_workers, replicas_to_aggregate,
                                               cluster.workers[i]->target()));
  }
  return workers;
}

// The ps task the token queue is on: the global step's, the first variable placed.
constexpr int kTokenTask = 0;

TEST(SyncReplicasOptimizerTest, test2Workers) {
  LocalCluster cluster(2, 2);
  auto w = GetWorkers(2, 2, cluster);
  // The chief initialised everything; the steps start at 0.
  EXPECT_FLOAT_EQ(w[0]->Read(w[0]->v0), 0.0f);
  EXPECT_FLOAT_EQ(w[0]->Read(w[0]->v1), 1.0f);
  EXPECT_EQ(w[0]->Step(w[0]->sync->local_step()), 0);
  EXPECT_EQ(w[1]->Step(w[1]->global_step), 0);
  EXPECT_EQ(w[1]->Step(w[1]->sync->local_step()), 0);

  // The initial tokens let each worker run one step on its own.
  w[0]->Step();
  w[1]->Step();
  cluster.WaitForTokens(kTokenTask, 2);  // The chief's update put its two tokens.
  EXPECT_EQ(w[1]->Step(w[1]->global_step), 1);
  EXPECT_FLOAT_EQ(w[1]->Read(w[1]->v0), 0 - (0.1f + 0.3f) / 2 * 2.0f);
  EXPECT_FLOAT_EQ(w[1]->Read(w[1]->v1), 1 - (0.9f + 1.1f) / 2 * 2.0f);
  // The initial tokens held 0, so the local steps are still 0.
  EXPECT_EQ(w[0]->Step(w[0]->sync->local_step()), 0);
  EXPECT_EQ(w[1]->Step(w[1]->sync->local_step()), 0);

  // Stale gradients (local step 0 < 1): dropped; the tokens (1) move the local steps on.
  w[0]->Step();
  w[1]->Step();
  EXPECT_EQ(w[1]->Step(w[1]->global_step), 1);
  EXPECT_EQ(w[0]->Step(w[0]->sync->local_step()), 1);
  EXPECT_EQ(w[1]->Step(w[1]->sync->local_step()), 1);
  EXPECT_FLOAT_EQ(w[1]->Read(w[1]->v0), 0 - (0.1f + 0.3f) / 2 * 2.0f);

  // No tokens left: the two workers must step together.
  auto t0 = std::async(std::launch::async, [&] { w[0]->Step(); });
  auto t1 = std::async(std::launch::async, [&] { w[1]->Step(); });
  t0.get();
  t1.get();
  EXPECT_EQ(w[1]->Step(w[1]->global_step), 2);
  EXPECT_FLOAT_EQ(w[1]->Read(w[1]->v0), 0 - 2 * (0.1f + 0.3f) / 2 * 2.0f);
  EXPECT_FLOAT_EQ(w[1]->Read(w[1]->v1), 1 - 2 * (0.9f + 1.1f) / 2 * 2.0f);
}

TEST(SyncReplicasOptimizerTest, test3Workers1Backup) {
  LocalCluster cluster(3, 2);
  auto w = GetWorkers(3, 2, cluster);
  EXPECT_EQ(w[1]->Step(w[1]->global_step), 0);
  EXPECT_EQ(w[1]->Step(w[1]->sync->local_step()), 0);

  // Workers 0 and 2 finish first: two gradients are enough for an update.
  w[0]->Step();
  w[2]->Step();
  cluster.WaitForTokens(kTokenTask, 1 + 3);  // One initial token left, three new ones.
  EXPECT_EQ(w[1]->Step(w[1]->global_step), 1);
  EXPECT_FLOAT_EQ(w[1]->Read(w[1]->v0), 0 - (0.1f + 0.5f) / 2 * 2.0f);
  EXPECT_FLOAT_EQ(w[1]->Read(w[1]->v1), 1 - (0.9f + 1.3f) / 2 * 2.0f);

  // Worker 1, the backup, comes late: its gradient is stale and dropped.
  w[1]->Step();
  // Every local step is still 0, so these gradients are dropped too.
  w[0]->Step();
  w[1]->Step();
  w[2]->Step();
  EXPECT_EQ(w[1]->Step(w[1]->global_step), 1);
  EXPECT_EQ(w[1]->Step(w[1]->sync->local_step()), 1);

  // Worker 0 alone cannot make an update; with worker 1 it can.
  auto t0 = std::async(std::launch::async, [&] { w[0]->Step(); });
  EXPECT_EQ(w[1]->Step(w[1]->global_step), 1);
  auto t1 = std::async(std::launch::async, [&] { w[1]->Step(); });
  t1.get();
  t0.get();
  EXPECT_EQ(w[1]->Step(w[1]->global_step), 2);
  EXPECT_FLOAT_EQ(w[1]->Read(w[1]->v0), -0.6f - (0.1f + 0.3f) / 2 * 2.0f);
  EXPECT_FLOAT_EQ(w[1]->Read(w[1]->v1), -1.2f - (0.9f + 1.1f) / 2 * 2.0f);
}

class SyncReplicasOptimizerHookTest : public ::testing::Test {
 protected:
  void SetUp() override { ResetDefaultGraph(); }
};

TEST_F(SyncReplicasOptimizerHookTest, testErrorIfUsedBeforeMinimizeCalled) {
  GradientDescentOptimizer sgd(1.0);
  SyncReplicasOptimizer opt(sgd, 1, 1);
  auto hook = opt.MakeSessionRunHook(true);
  EXPECT_THAT([&] { hook->Begin(); },
              ::testing::ThrowsMessage<ValueError>(HasSubstr("apply_gradient should be called")));
}

TEST_F(SyncReplicasOptimizerHookTest, testCanCreatedBeforeMinimizeCalled) {
  GradientDescentOptimizer sgd(1.0);
  SyncReplicasOptimizer opt(sgd, 1, 1);
  auto hook = opt.MakeSessionRunHook(true);
  Variable v(Tensor::Vector<float>({0}), "v");
  opt.Minimize(ReduceSum(v.value()), CreateGlobalStep());
  hook->Begin();
}

}  // namespace
}  // namespace mts
