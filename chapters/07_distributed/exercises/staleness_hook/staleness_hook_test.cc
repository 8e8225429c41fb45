// Tests of the staleness hook exercise: two workers on one in-process ps, in lockstep and
// not; a single worker sees no staleness.
#include "chapters/07_distributed/exercises/staleness_hook/staleness_hook.h"

#include <memory>

#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
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
    restore_step_2_ = step_.Assign(Constant(Tensor::Scalar<int64_t>(2))).op();
  }
  std::unique_ptr<HookedSession> Worker(std::shared_ptr<StalenessHook> hook) {
    return std::make_unique<HookedSession>(
        NewSession(&graph_, SessionOptions{"grpc://127.0.0.1:" + std::to_string(ps_.port())}),
        std::vector<std::shared_ptr<SessionRunHook>>{hook});
  }
  // The chief's part, in a session of its own (a hooked run could not read the step yet).
  void Initialize() { Chief(GlobalVariablesInitializer()); }
  // Runs `op` in a session of the chief's.
  void Chief(Operation* op) {
    NewSession(&graph_, SessionOptions{"grpc://127.0.0.1:" + std::to_string(ps_.port())})
        ->Run({}, {}, {op});
  }

  Server ps_{ClusterSpec::FromFlag("ps=127.0.0.1:0"), "ps", 0};
  Graph graph_;
  DefaultGraphScope scope_{graph_};
  Variable step_;
  Operation* train_ = nullptr;
  Operation* restore_step_2_ = nullptr;  // What a restore of an older checkpoint does.
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

// A restored checkpoint sets the step back: the run that sees it is a reset, measured
// neither as a huge negative staleness nor, clamped, as a perfectly fresh step.
TEST_F(StalenessHookTest, AStepThatGoesBackwardsIsAResetNotAMeasurement) {
  auto hook = std::make_shared<StalenessHook>(step_);
  auto worker = Worker(hook);
  Initialize();
  for (int i = 0; i < 5; ++i) worker->Run(train_);  // Reads 0..4: four measured, all 0.
  Chief(restore_step_2_);
  worker->Run(train_);  // Reads 2, after 4: a reset.
  worker->Run(train_);  // Reads 3: measured again, 0.
  EXPECT_EQ(hook->num_step_resets(), 1);
  EXPECT_EQ(hook->num_measured(), 5);
  EXPECT_EQ(hook->total_staleness(), 0);
}

// A new stack for this worker (a recovery) starts over: the updates that landed while it
// recovered are not the staleness of any gradient it computed.
TEST_F(StalenessHookTest, ANewStackHasNoPreviousRun) {
  auto hook = std::make_shared<StalenessHook>(step_);
  auto worker = Worker(hook), other = Worker(std::make_shared<StalenessHook>(step_));
  Initialize();
  hook->AfterCreateSession(*worker, nullptr);
  worker->Run(train_);                             // Reads 0.
  worker->Run(train_);                             // Reads 1: measured, 0.
  for (int i = 0; i < 5; ++i) other->Run(train_);  // While this worker recovers...
  hook->AfterCreateSession(*worker, nullptr);      // ...on its new stack:
  worker->Run(train_);                             // reads 7: nothing to compare with.
  other->Run(train_);
  worker->Run(train_);  // Reads 9: one other update since 7.
  EXPECT_EQ(hook->num_measured(), 2);
  EXPECT_EQ(hook->total_staleness(), 1);
  EXPECT_EQ(hook->max_staleness(), 1);
  EXPECT_EQ(hook->num_step_resets(), 0);
}

}  // namespace
}  // namespace mts
