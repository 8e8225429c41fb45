// Tests of the EvaluationHook exercise, on a small linear regression trained through
// MonitoredTrainingSession and MonitoredSession, evaluated on held-out examples.
#include "chapters/06_monitored/exercises/evaluation_hook/evaluation_hook.h"

#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/learning/example_data.h"
#include "src/01_session/learning/gradient_descent_optimizer.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/chief_session_creator.h"
#include "src/03_hooked/hooks/stop_at_step_hook.h"
#include "src/06_monitored/monitored_session.h"
#include "src/06_monitored/monitored_session_scope.h"
#include "src/06_monitored/monitored_training_session.h"
#include "src/platform/errors.h"
#include "tests/testing/fault_injection.h"

namespace mts {
namespace {

// The steps of `evaluations`, in order.
std::vector<int64_t> Steps(const std::vector<EvaluationHook::Evaluation>& evaluations) {
  std::vector<int64_t> steps;
  for (const auto& e : evaluations) steps.push_back(e.step);
  return steps;
}

// y = x w + b trained by gradient descent on 128 examples; the metric is the mean squared
// error on 64 other examples of the same true line, which the optimizer never sees.
class EvaluationHookTest : public ::testing::Test {
 protected:
  EvaluationHookTest() {
    LinearRegressionData train = MakeLinearRegressionData(128, 3, /*seed=*/11, 0.1f);
    LinearRegressionData held_out = MakeLinearRegressionData(64, 3, /*seed=*/12, 0.0f);
    Variable w(Tensor::Zeros(DataType::kFloat, {3, 1}), "w");
    Variable b(Tensor::Zeros(DataType::kFloat, {1}), "b");
    Output loss = ReduceMean(Square(Sub(Add(MatMul(Constant(train.x), w), b), Constant(train.y))));
    // The held-out targets lie on the training set's true line, without noise.
    Output x_eval = Constant(held_out.x);
    Output y_eval = Add(MatMul(x_eval, Constant(train.weights)), Constant(train.bias));
    eval_error_ = ReduceMean(Square(Sub(Add(MatMul(x_eval, w), b), y_eval)), std::nullopt, false,
                             "eval_error");
    train_op_ = GradientDescentOptimizer(0.05f).Minimize(loss, global_step_);
  }

  // A MonitoredSession over a chief creator, counting the runs the hooks see.
  std::unique_ptr<MonitoredSession> Make(std::shared_ptr<EvaluationHook> hook) {
    return std::make_unique<MonitoredSession>(std::make_shared<ChiefSessionCreator>(),
                                              MonitoredSession::Hooks{hook, counter_});
  }
  void Train(MonitoredSession& session, int steps) {
    for (int i = 0; i < steps; ++i) session.Run({}, {}, {train_op_});
  }

  Graph graph_;
  DefaultGraphScope scope_{graph_};
  Variable global_step_ = GetOrCreateGlobalStep();
  Output eval_error_;
  Operation* train_op_ = nullptr;
  std::shared_ptr<FaultyHook> counter_ =
      std::make_shared<FaultyHook>(FaultyHook::Phase::kBeforeRun, FaultSchedule::Never());
};

// Through MonitoredTrainingSession: evaluations at exactly N, 2N, ..., then the final one
// at the last step, which is not a multiple of N.
TEST_F(EvaluationHookTest, EvaluatesEveryNStepsAndAtTheEnd) {
  auto hook = std::make_shared<EvaluationHook>(eval_error_, 5);
  MonitoredTrainingSessionOptions options;
  options.hooks = {hook, StopAtStepHook::AtLastStep(23)};
  options.stop_on_signals = false;
  auto session = MonitoredTrainingSession(options);
  WithMonitoredSession(*session, [&](MonitoredSession& sess) {
    while (!sess.ShouldStop()) sess.Run({}, {}, {train_op_});
  });
  EXPECT_EQ(Steps(hook->evaluations()), (std::vector<int64_t>{5, 10, 15, 20}));
  ASSERT_TRUE(hook->final_evaluation().has_value());
  EXPECT_EQ(hook->final_evaluation()->step, 23);
}

// The held-out error falls as the model trains, and the final evaluation is the lowest.
TEST_F(EvaluationHookTest, TheMetricDecreasesAsTrainingProceeds) {
  auto hook = std::make_shared<EvaluationHook>(eval_error_, 10);
  auto session = Make(hook);
  Train(*session, 55);
  session->Close();
  const std::vector<EvaluationHook::Evaluation>& evaluations = hook->evaluations();
  ASSERT_EQ(evaluations.size(), 5u);
  for (size_t i = 1; i < evaluations.size(); ++i) {
    EXPECT_LT(evaluations[i].value, evaluations[i - 1].value) << "at step " << evaluations[i].step;
  }
  ASSERT_TRUE(hook->final_evaluation().has_value());
  EXPECT_LT(hook->final_evaluation()->value, evaluations.back().value);
  EXPECT_LT(hook->final_evaluation()->value, 0.5f * evaluations.front().value);
}

// With N = 1 every step is evaluated; the evaluations run on the raw session, so the other
// hooks see only the training runs.
TEST_F(EvaluationHookTest, EvaluationRunsBypassTheHooks) {
  auto hook = std::make_shared<EvaluationHook>(eval_error_, 1);
  auto session = Make(hook);
  Train(*session, 4);
  EXPECT_EQ(Steps(hook->evaluations()), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(counter_->before_run_calls(), 4);
  EXPECT_EQ(counter_->after_run_calls(), 4);
  session->Close();
}

// End runs only on a clean close: a session closed after an error has no final evaluation.
TEST_F(EvaluationHookTest, TheFinalEvaluationNeedsACleanClose) {
  auto clean = std::make_shared<EvaluationHook>(eval_error_, 5);
  auto session = Make(clean);
  Train(*session, 7);
  session->Close();
  ASSERT_TRUE(clean->final_evaluation().has_value());
  EXPECT_EQ(clean->final_evaluation()->step, 7);

  auto failed = std::make_shared<EvaluationHook>(eval_error_, 5);
  auto other = Make(failed);
  Train(*other, 7);
  other->CloseAfterError();
  EXPECT_EQ(Steps(failed->evaluations()), (std::vector<int64_t>{5}));
  EXPECT_FALSE(failed->final_evaluation().has_value());
}

// Inside WithMonitoredSession, a body that raises closes without End.
TEST_F(EvaluationHookTest, ABodyThatRaisesGetsNoFinalEvaluation) {
  auto hook = std::make_shared<EvaluationHook>(eval_error_, 5);
  auto session = Make(hook);
  EXPECT_THROW(WithMonitoredSession(*session,
                                    [&](MonitoredSession& sess) {
                                      Train(sess, 3);
                                      throw InternalError("the loss became NaN");
                                    }),
               InternalError);
  EXPECT_TRUE(hook->evaluations().empty());
  EXPECT_FALSE(hook->final_evaluation().has_value());
}

// A step that moves by more than one per run (here 3: other workers' updates, or several
// updates per step) never hits most multiples of N: evaluations come once N steps have
// passed since the last one, recorded at the exact step, never at a step that did not exist.
TEST_F(EvaluationHookTest, AStepThatJumpsIsEvaluatedAtTheExactStep) {
  Operation* three_steps = IncrementGlobalStep(3).op();
  auto hook = std::make_shared<EvaluationHook>(eval_error_, 5);
  auto session = Make(hook);
  for (int i = 0; i < 6; ++i) session->Run({}, {}, {three_steps});  // Steps 3, 6, ..., 18.
  // Before the runs: 0 3 6 9 12 15. Estimates 1 4 7 (at least 5: evaluate; exactly 9) 10 13
  // 16 (at least 14: evaluate; exactly 18).
  EXPECT_EQ(Steps(hook->evaluations()), (std::vector<int64_t>{9, 18}));
  EXPECT_EQ(counter_->before_run_calls(), 6);
  session->Close();
  EXPECT_EQ(hook->final_evaluation()->step, 18);
}

// A recovery without a checkpoint starts the model again at step 0: the evaluations start
// again too, N steps after it, rather than waiting for the step to pass the old ones.
TEST_F(EvaluationHookTest, ARollbackStartsTheCountAgain) {
  auto hook = std::make_shared<EvaluationHook>(eval_error_, 5);
  // Preempts the 12th training run after it ran (hooks before this one saw it).
  auto preempt = std::make_shared<FaultyHook>(FaultyHook::Phase::kAfterRun,
                                              FaultSchedule::AtCall(12, ErrorCode::kAborted));
  MonitoredSession session(std::make_shared<ChiefSessionCreator>(),
                           MonitoredSession::Hooks{hook, preempt});
  Train(session, 16);  // Steps 1..11, then 1..5 on the new session.
  EXPECT_EQ(GlobalStepValue(session, global_step_.value()), 5);
  EXPECT_EQ(Steps(hook->evaluations()), (std::vector<int64_t>{5, 10, 5}));
  session.Close();
}

}  // namespace
}  // namespace mts
