// rmsprop_test.cc: decides whether the rmsprop exercise of chapter 01 is done.
//
// As in tests/01_session/learning/optimizer_test.cc, the variable w = [1, -2] is trained on
// loss = sum(w^2), whose gradient is 2w, and every step is replayed by hand beside it.
#include "chapters/01_session/exercises/rmsprop/rmsprop.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "src/01_session/array_ops.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/session.h"
#include "src/01_session/training_util.h"

namespace mts {
namespace {

const std::vector<double> kInitialW = {1.0, -2.0};

// Trains w on sum(w^2) for `steps` steps beside a replay of rmsprop.h's rule in plain
// arithmetic, and compares w and every slot after each step.
void ExpectStepsMatchTheRuleByHand(double momentum, bool centered, int steps) {
  const double lr = 0.01, decay = 0.9, epsilon = 1e-6;
  Graph g;
  DefaultGraphScope as_default(g);
  Variable w(Tensor::Vector<double>(kInitialW), "w");
  RMSPropOptimizer optimizer(lr, decay, momentum, epsilon, centered);
  Operation* train_op = optimizer.Minimize(ReduceSum(Square(w)));
  Session session;
  session.Run(GlobalVariablesInitializer());

  const size_t n = kInitialW.size();
  std::vector<double> hand_w = kInitialW, hand_rms(n, 0.0), hand_mg(n, 0.0), hand_mom(n, 0.0);
  for (int step = 1; step <= steps; ++step) {
    for (size_t i = 0; i < n; ++i) {
      const double grad = 2.0 * hand_w[i];
      hand_rms[i] = decay * hand_rms[i] + (1 - decay) * grad * grad;
      hand_mg[i] = decay * hand_mg[i] + (1 - decay) * grad;
      const double d = centered ? hand_rms[i] - hand_mg[i] * hand_mg[i] : hand_rms[i];
      hand_mom[i] = momentum * hand_mom[i] + lr * grad / std::sqrt(d + epsilon);
      hand_w[i] -= hand_mom[i];
    }
    session.Run(train_op);
    auto read = [&](const Variable& v) { return session.Run(v.value()).ToVector<double>(); };
    const std::vector<double> w_now = read(w);
    const std::vector<double> rms_now = read(optimizer.GetSlot(w, "rms"));
    const std::vector<double> mom_now = read(optimizer.GetSlot(w, "momentum"));
    for (size_t i = 0; i < n; ++i) {
      EXPECT_NEAR(w_now[i], hand_w[i], 1e-12) << "w[" << i << "] after step " << step;
      EXPECT_NEAR(rms_now[i], hand_rms[i], 1e-12) << "rms[" << i << "] after step " << step;
      EXPECT_NEAR(mom_now[i], hand_mom[i], 1e-12) << "mom[" << i << "] after step " << step;
    }
    if (centered) {
      const std::vector<double> mg_now = read(optimizer.GetSlot(w, "mg"));
      for (size_t i = 0; i < n; ++i) {
        EXPECT_NEAR(mg_now[i], hand_mg[i], 1e-12) << "mg[" << i << "] after step " << step;
      }
    }
  }
}

// Without momentum, two steps match the plain rule; the momentum slot still holds the last
// move, as TensorFlow's does (momentum 0 is not a reason to skip the slot).
TEST(RMSPropTest, TwoStepsMatchTheRuleByHand) {
  ExpectStepsMatchTheRuleByHand(/*momentum=*/0.0, /*centered=*/false, 2);
}

// With momentum, each step adds a fraction of the last move: three steps, by hand.
TEST(RMSPropTest, MomentumStepsMatchTheRuleByHand) {
  ExpectStepsMatchTheRuleByHand(/*momentum=*/0.5, /*centered=*/false, 3);
}

// Centered, the denominator uses this step's mg as well as this step's rms.
TEST(RMSPropTest, CenteredStepsMatchTheRuleByHand) {
  ExpectStepsMatchTheRuleByHand(/*momentum=*/0.9, /*centered=*/true, 3);
}

// The first step, on paper: rms = 0.1 g^2, so each element moves by lr / sqrt(0.1),
// about 0.0316, against its gradient, whatever the gradient's size.
TEST(RMSPropTest, FirstStepMovesEveryElementByTheSameAmount) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable w(Tensor::Vector<double>(kInitialW), "w");
  RMSPropOptimizer optimizer(0.01, 0.9, 0.0, 1e-10);
  Operation* train_op = optimizer.Minimize(ReduceSum(Square(w)));
  Session session;
  session.Run(GlobalVariablesInitializer());
  session.Run(train_op);
  const std::vector<double> w1 = session.Run(w.value()).ToVector<double>();
  const double move = 0.01 / std::sqrt(0.1);
  EXPECT_NEAR(w1[0], 1.0 - move, 1e-9);
  EXPECT_NEAR(w1[1], -2.0 + move, 1e-9);
}

// Each variable has its own slots, global, non-trainable variables named after the
// optimizer, "<var>/RMSProp" and "<var>/RMSProp_1".
TEST(RMSPropTest, EachVariableGetsItsOwnSlot) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable w(Tensor::Vector<double>(kInitialW), "w");
  Variable b(Tensor::Scalar(0.5), "b");
  RMSPropOptimizer optimizer(0.01);
  optimizer.Minimize(Add(ReduceSum(Square(w)), Square(b)));
  EXPECT_EQ(optimizer.GetSlot(w, "rms").name(), "w/RMSProp");
  EXPECT_EQ(optimizer.GetSlot(w, "momentum").name(), "w/RMSProp_1");
  EXPECT_EQ(optimizer.GetSlot(b, "rms").name(), "b/RMSProp");
  EXPECT_EQ(optimizer.GetSlot(b, "momentum").name(), "b/RMSProp_1");
  EXPECT_EQ(GlobalVariables().size(), 6u);
  EXPECT_EQ(TrainableVariables().size(), 2u);
}

// Centered, the mean-gradient slot comes second, as in TensorFlow.
TEST(RMSPropTest, CenteredAddsTheMeanGradientSlot) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable w(Tensor::Vector<double>(kInitialW), "w");
  RMSPropOptimizer optimizer(0.01, 0.9, 0.0, 1e-10, /*centered=*/true);
  optimizer.Minimize(ReduceSum(Square(w)));
  EXPECT_EQ(optimizer.GetSlot(w, "mg").name(), "w/RMSProp_1");
  EXPECT_EQ(optimizer.GetSlot(w, "momentum").name(), "w/RMSProp_2");
}

// With a global step, one run is one step, as for every optimizer.
TEST(RMSPropTest, MinimizeIncrementsTheGlobalStep) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable w(Tensor::Vector<double>(kInitialW), "w");
  Variable step = GetOrCreateGlobalStep();
  RMSPropOptimizer optimizer(0.01);
  Operation* train_op = optimizer.Minimize(ReduceSum(Square(w)), step);
  EXPECT_EQ(train_op->name(), "RMSProp");
  Session session;
  session.Run(GlobalVariablesInitializer());
  session.Run(train_op);
  session.Run(train_op);
  EXPECT_EQ(GlobalStepValue(session, step), 2);
}

// Many steps drive sum(w^2) toward its minimum at w = 0.
TEST(RMSPropTest, TrainingReducesTheLoss) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable w(Tensor::Vector<double>(kInitialW), "w");
  Output loss = ReduceSum(Square(w));
  RMSPropOptimizer optimizer(0.05);
  Operation* train_op = optimizer.Minimize(loss);
  Session session;
  session.Run(GlobalVariablesInitializer());
  for (int i = 0; i < 200; ++i) session.Run(train_op);
  EXPECT_LT(session.Run(loss).scalar<double>(), 0.01);
}

}  // namespace
}  // namespace mts
