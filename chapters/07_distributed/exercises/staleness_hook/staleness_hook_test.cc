// Tests of the staleness hook exercise: two workers on one in-process ps, in lockstep and
// not; a single worker sees no staleness.
#include "chapters/07_distributed/exercises/staleness_hook/staleness_hook.h"

#include <memory>

#include "gtest/gtest.h"
#include "src/01_session/learning/gradient_descent_optimizer.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/session_factory.h"
#include "src/01_session/training_util.h"
#include "src/03_hooked/hooked_session.h"
#include "src/07_distributed/replica_device_setter.h"
#include "src/07_distributed/server.h"

namespace mts {
namespace {

class StalenessHookTest : public ::testing::Test {
 protected:
  StalenessHookTest() {
    ReplicaDeviceSetter on_ps(1);
    Variable w(Tensor::Scalar<float>(1), "w");
    step_ = GetOrCreateGlobalStep();
    train_ = GradientDescentOptimizer(0.1).Minimize(Mul(w.value(), w.value()), step_);
  }
  std::unique_ptr<HookedSession> Worker(std::shared_ptr<StalenessHook> hook) {
    return std::make_unique<HookedSession>(
        NewSession(&graph_, SessionOptions{"grpc://127.0.0.1:" + std::to_string(ps_.port())}),
        std::vector<std::shared_ptr<SessionRunHook>>{hook});
  }
  // The chief's part, in a session of its own (a hooked run could not read the step yet).
  void Initialize() {
    NewSession(&graph_, SessionOptions{"grpc://127.0.0.1:" + std::to_string(ps_.port())})
        ->Run(GlobalVariablesInitializer());
  }

  Server ps_{ClusterSpec::FromFlag("ps=127.0.0.1:0"), "ps", 0};
  Graph graph_;
  DefaultGraphScope scope_{graph_};
  Variable step_;
  Operation* train_ = nullptr;
};

TEST_F(StalenessHookTest, ALoneWorkerIsNeverStale) {
  auto hook = std::make_shared<StalenessHook>(step_);
  auto worker = Worker(hook);
  Initialize();
  for (int i = 0; i < 5; ++i) worker->Run(train_);
  EXPECT_EQ(hook->num_measured(), 4);  // The first run has nothing to compare with.
  EXPECT_EQ(hook->total_staleness(), 0);
  EXPECT_EQ(hook->max_staleness(), 0);
}

TEST_F(StalenessHookTest, TwoWorkersInLockstepEachSeeOneOtherUpdatePerStep) {
  auto hook_a = std::make_shared<StalenessHook>(step_);
  auto hook_b = std::make_shared<StalenessHook>(step_);
  auto a = Worker(hook_a), b = Worker(hook_b);
  Initialize();
  for (int i = 0; i < 4; ++i) {
    a->Run(train_);
    b->Run(train_);
  }
  EXPECT_EQ(hook_a->num_measured(), 3);
  EXPECT_EQ(hook_a->total_staleness(), 3);
  EXPECT_EQ(hook_b->total_staleness(), 3);
  EXPECT_EQ(hook_b->max_staleness(), 1);
}

TEST_F(StalenessHookTest, AWorkerThatFallsBehindSeesTheUpdatesItMissed) {
  auto hook = std::make_shared<StalenessHook>(step_);
  auto slow = Worker(hook), fast = Worker(std::make_shared<StalenessHook>(step_));
  Initialize();
  slow->Run(train_);
  for (int i = 0; i < 7; ++i) fast->Run(train_);
  slow->Run(train_);
  EXPECT_EQ(hook->num_measured(), 1);
  EXPECT_EQ(hook->max_staleness(), 7);
}

}  // namespace
}  // namespace mts
