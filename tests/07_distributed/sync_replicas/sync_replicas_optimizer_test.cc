// SyncReplicasOptimizer and its hook in one process (a plain Session keeps the shared
// resources): the synchronous step, the hook's checks, the init tokens, and a Close that
// does not wait out the grace period for the chief's queue runner.
#include "src/07_distributed/sync_replicas/sync_replicas_optimizer.h"

#include <memory>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/learning/gradient_descent_optimizer.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/06_monitored/monitored_training_session.h"
#include "src/platform/logging.h"
#include "tests/testing/expect_error.h"

namespace mts {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

class SyncReplicasOptimizerTest : public ::testing::Test {
 protected:
  void SetUp() override { ResetDefaultGraph(); }

  std::unique_ptr<MonitoredSession> Session(std::shared_ptr<SessionRunHook> hook,
                                            double stop_grace_period_secs = 120) {
    MonitoredTrainingSessionOptions options;
    options.hooks = {std::move(hook)};
    options.log_step_count_steps = 0;
    options.stop_on_signals = false;
    options.stop_grace_period_secs = stop_grace_period_secs;
    return MonitoredTrainingSession(options);
  }

  GradientDescentOptimizer sgd_{2.0};
};

// One replica in one session: the first token is the initial 0, so every other step's
// gradient is stale, as in TensorFlow's first steps after a (re)start.
TEST_F(SyncReplicasOptimizerTest, OneReplicaAppliesEveryFreshGradient) {
  Variable global_step = CreateGlobalStep();
  Variable v(Tensor::Scalar(0.0f), "v");
  SyncReplicasOptimizer sync(sgd_, 1, 1);
  Operation* train_op = sync.ApplyGradients({{Constant(0.5f), v}}, global_step);
  auto session = Session(sync.MakeSessionRunHook(true));
  for (int i = 0; i < 3; ++i) session->Run(train_op);
  // Steps 1 and 3 were fresh (local step 0 then 1), step 2 was stale.
  EXPECT_EQ(session->Run(global_step.value()).scalar<int64_t>(), 2);
  EXPECT_FLOAT_EQ(session->Run(v.value()).scalar<float>(), -2.0f);
  EXPECT_EQ(session->Run(sync.local_step().value()).scalar<int64_t>(), 2);
  session->Close();
}

// The chief's queue runner waits in a take for gradients that never come; Close cancels it
// (the cancel op of the runner), so it returns although the grace period is endless.
TEST_F(SyncReplicasOptimizerTest, CloseDoesNotWaitForTheChiefQueueRunner) {
  Variable global_step = CreateGlobalStep();
  Variable v(Tensor::Scalar(0.0f), "v");
  SyncReplicasOptimizer sync(sgd_, 2, 2);
  sync.ApplyGradients({{Constant(0.5f), v}}, global_step);
  auto session = Session(sync.MakeSessionRunHook(true), /*stop_grace_period_secs=*/1e9);
  ScopedLogCapture log;
  session->Close();
  EXPECT_FALSE(log.Contains("threads still running"));
}

// The accumulators and the token queue are made once per variable and once per job.
TEST_F(SyncReplicasOptimizerTest, OneAccumulatorPerVariableWithAGradient) {
  Variable global_step = CreateGlobalStep();
  Variable a(Tensor::Scalar(0.0f), "a");
  Variable b(Tensor::Scalar(0.0f), "b");
  SyncReplicasOptimizer sync(sgd_, 2, 3);
  sync.ApplyGradients({{Constant(1.0f), a}, {Output(), b}}, global_step);
  ASSERT_EQ(sync.accumulators().size(), 1u);
  EXPECT_EQ(sync.accumulators()[0].shared_name(), "a/grad_accum");
  EXPECT_EQ(sync.local_step().name(), "sync_rep_local_step");
}

// ApplyGradients' refusals, in TensorFlow's words.
TEST_F(SyncReplicasOptimizerTest, ApplyGradientsNeedsVariablesAndAGlobalStep) {
  Variable v(Tensor::Scalar(0.0f), "v");
  SyncReplicasOptimizer sync(sgd_, 1);
  EXPECT_THAT([&] { sync.ApplyGradients({}, CreateGlobalStep()); },
              ThrowsMessage<ValueError>(HasSubstr("Must supply at least one variable")));
  EXPECT_THAT(
      [&] {
        sync.ApplyGradients({{Constant(1.0f), v}}, std::nullopt);
      },
      ThrowsMessage<ValueError>(HasSubstr("Global step is required to check staleness")));
}

// The chief's pieces exist only once the gradients are applied.
TEST_F(SyncReplicasOptimizerTest, ChiefPiecesNeedApplyGradients) {
  SyncReplicasOptimizer sync(sgd_, 1);
  EXPECT_THAT([&] { sync.GetChiefQueueRunner(); },
              ThrowsMessage<ValueError>(HasSubstr("Should be called after apply_gradients().")));
  EXPECT_THAT([&] { sync.GetInitTokensOp(); },
              ThrowsMessage<ValueError>(HasSubstr("should be called after apply_gradients()")));
}

// With fewer workers than gradients to aggregate, the first step needs extra tokens.
TEST_F(SyncReplicasOptimizerTest, InitTokensMustCoverTheFirstStep) {
  Variable global_step = CreateGlobalStep();
  Variable v(Tensor::Scalar(0.0f), "v");
  SyncReplicasOptimizer sync(sgd_, /*replicas_to_aggregate=*/3, /*total_num_replicas=*/1);
  sync.ApplyGradients({{Constant(1.0f), v}}, global_step);
  EXPECT_THAT([&] { sync.GetInitTokensOp(1); },
              ThrowsMessage<ValueError>(
                  HasSubstr("Too few tokens to finish the first step: 1 (given) vs 2 (needed)")));
  EXPECT_EQ(sync.GetInitTokensOp(2)->attr<int64_t>("num_tokens"), 2);
  EXPECT_EQ(sync.GetInitTokensOp()->attr<int64_t>("num_tokens"), 3);
}

// A worker's hook refuses a model the chief has not initialised.
TEST_F(SyncReplicasOptimizerTest, HookRefusesAnUninitialisedModel) {
  Variable global_step = CreateGlobalStep();
  Variable v(Tensor::Scalar(0.0f), "v");
  SyncReplicasOptimizer sync(sgd_, 1);
  sync.ApplyGradients({{Constant(1.0f), v}}, global_step);
  auto hook = sync.MakeSessionRunHook(false);
  hook->Begin();
  mts::Session session;
  EXPECT_THAT([&] { hook->AfterCreateSession(session, nullptr); },
              ThrowsMessage<RuntimeError>(AllOf(
                  HasSubstr("Init operations did not make model ready for SyncReplicasOptimizer"),
                  HasSubstr("sync_rep_local_step_init"), HasSubstr("global_step"))));
}

}  // namespace
}  // namespace mts
