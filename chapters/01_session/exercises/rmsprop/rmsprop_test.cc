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

// Two steps match the rule computed with plain arithmetic.
TEST(RMSPropTest, TwoStepsMatchTheRuleByHand) {
  const double lr = 0.01, decay = 0.9, epsilon = 1e-6;
  Graph g;
  DefaultGraphScope as_default(g);
  Variable w(Tensor::Vector<double>(kInitialW), "w");
  RMSPropOptimizer optimizer(lr, decay, epsilon);
  Operation* train_op = optimizer.Minimize(ReduceSum(Square(w)));
  Session session;
  session.Run(GlobalVariablesInitializer());

  std::vector<double> hand_w = kInitialW, hand_rms(kInitialW.size(), 0.0);
  for (int step = 1; step <= 2; ++step) {
    for (size_t i = 0; i < hand_w.size(); ++i) {
      const double grad = 2.0 * hand_w[i];
      hand_rms[i] = decay * hand_rms[i] + (1 - decay) * grad * grad;
      hand_w[i] -= lr * grad / std::sqrt(hand_rms[i] + epsilon);
    }
    session.Run(train_op);
    const std::vector<double> w_now = session.Run(w.value()).ToVector<double>();
    const std::vector<double> rms_now =
        session.Run(optimizer.GetSlot(w, "rms").value()).ToVector<double>();
    for (size_t i = 0; i < hand_w.size(); ++i) {
      EXPECT_NEAR(w_now[i], hand_w[i], 1e-12) << "w[" << i << "] after step " << step;
      EXPECT_NEAR(rms_now[i], hand_rms[i], 1e-12) << "rms[" << i << "] after step " << step;
    }
  }
}

// The first step, on paper: rms = 0.1 g^2, so each element moves by lr / sqrt(0.1),
// about 0.0316, against its gradient, whatever the gradient's size.
TEST(RMSPropTest, FirstStepMovesEveryElementByTheSameAmount) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable w(Tensor::Vector<double>(kInitialW), "w");
  RMSPropOptimizer optimizer(0.01, 0.9, 1e-10);
  Operation* train_op = optimizer.Minimize(ReduceSum(Square(w)));
  Session session;
  session.Run(GlobalVariablesInitializer());
  session.Run(train_op);
  const std::vector<double> w1 = session.Run(w.value()).ToVector<double>();
  const double move = 0.01 / std::sqrt(0.1);
  EXPECT_NEAR(w1[0], 1.0 - move, 1e-9);
  EXPECT_NEAR(w1[1], -2.0 + move, 1e-9);
}

// Each variable has its own slot, a global, non-trainable variable named "<var>/RMSProp".
TEST(RMSPropTest, EachVariableGetsItsOwnSlot) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable w(Tensor::Vector<double>(kInitialW), "w");
  Variable b(Tensor::Scalar(0.5), "b");
  RMSPropOptimizer optimizer(0.01);
  optimizer.Minimize(Add(ReduceSum(Square(w)), Square(b)));
  EXPECT_EQ(optimizer.GetSlot(w, "rms").name(), "w/RMSProp");
  EXPECT_EQ(optimizer.GetSlot(b, "rms").name(), "b/RMSProp");
  EXPECT_EQ(GlobalVariables().size(), 4u);
  EXPECT_EQ(TrainableVariables().size(), 2u);
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
