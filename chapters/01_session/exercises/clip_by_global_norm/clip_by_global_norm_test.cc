// clip_by_global_norm_test.cc: decides whether the clip_by_global_norm exercise of chapter 01
// is done.
#include "chapters/01_session/exercises/clip_by_global_norm/clip_by_global_norm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "src/01_session/array_ops.h"
#include "src/01_session/learning/gradient_descent_optimizer.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/session.h"
#include "src/01_session/variables.h"

namespace mts {
namespace {

// Two tensors whose joint length is 13: sqrt(3^2 + 4^2 + 12^2).
Output A() { return Constant(Tensor::Vector<double>({3.0, 4.0})); }
Output B() { return Constant(Tensor::Matrix<double>({{12.0}})); }

// The global norm treats all the tensors as one long vector.
TEST(ClipByGlobalNormTest, GlobalNormIsTheLengthOfEverythingTogether) {
  Graph g;
  DefaultGraphScope as_default(g);
  ClippedTensors result = ClipByGlobalNorm({A(), B()}, 100.0);
  ASSERT_NE(result.global_norm.op(), nullptr) << "no global_norm";
  Session session;
  EXPECT_DOUBLE_EQ(session.Run(result.global_norm).scalar<double>(), 13.0);
}

// Above the limit, every tensor shrinks by clip_norm / global_norm, here 6.5 / 13 = 1/2.
TEST(ClipByGlobalNormTest, AboveTheLimitEveryTensorShrinksByOneFactor) {
  Graph g;
  DefaultGraphScope as_default(g);
  ClippedTensors result = ClipByGlobalNorm({A(), B()}, 6.5);
  ASSERT_EQ(result.clipped.size(), 2u);
  ASSERT_NE(result.global_norm.op(), nullptr) << "no global_norm";
  Session session;
  EXPECT_EQ(session.Run(result.clipped[0]).ToVector<double>(), (std::vector<double>{1.5, 2.0}));
  EXPECT_EQ(session.Run(result.clipped[1]).ToVector<double>(), (std::vector<double>{6.0}));
  EXPECT_EQ(session.Run(result.clipped[1]).shape(), (TensorShape{1, 1}));
  // The norm reported is the one before clipping.
  EXPECT_DOUBLE_EQ(session.Run(result.global_norm).scalar<double>(), 13.0);
}

// At or below the limit nothing changes.
TEST(ClipByGlobalNormTest, BelowTheLimitNothingChanges) {
  for (double clip_norm : {13.0, 20.0}) {
    SCOPED_TRACE(clip_norm);
    Graph g;
    DefaultGraphScope as_default(g);
    ClippedTensors result = ClipByGlobalNorm({A(), B()}, clip_norm);
    ASSERT_EQ(result.clipped.size(), 2u);
    Session session;
    EXPECT_EQ(session.Run(result.clipped[0]).ToVector<double>(), (std::vector<double>{3.0, 4.0}));
    EXPECT_EQ(session.Run(result.clipped[1]).ToVector<double>(), (std::vector<double>{12.0}));
  }
}

// All-zero gradients stay zero: no division by a zero norm, no NaN.
TEST(ClipByGlobalNormTest, ZeroGradientsStayZero) {
  Graph g;
  DefaultGraphScope as_default(g);
  ClippedTensors result = ClipByGlobalNorm({Constant(Tensor::Vector<double>({0.0, 0.0}))}, 1.0);
  ASSERT_NE(result.global_norm.op(), nullptr) << "no global_norm";
  Session session;
  EXPECT_EQ(session.Run(result.clipped[0]).ToVector<double>(), (std::vector<double>{0.0, 0.0}));
  EXPECT_EQ(session.Run(result.global_norm).scalar<double>(), 0.0);
}

// A norm that is inf or NaN cannot be clipped to: every element of every clipped tensor is
// NaN, so the broken step is seen (a NanTensorHook stops) instead of silently zeroed.
TEST(ClipByGlobalNormTest, ANonFiniteNormMakesEveryValueNaN) {
  for (double bad :
       {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    SCOPED_TRACE(bad);
    Graph g;
    DefaultGraphScope as_default(g);
    ClippedTensors result =
        ClipByGlobalNorm({A(), Constant(Tensor::Vector<double>({1.0, bad}))}, 5.0);
    ASSERT_EQ(result.clipped.size(), 2u);
    ASSERT_NE(result.global_norm.op(), nullptr) << "no global_norm";
    Session session;
    EXPECT_FALSE(std::isfinite(session.Run(result.global_norm).scalar<double>()));
    for (const Output& clipped : result.clipped) {
      for (double v : session.Run(clipped).ToVector<double>()) EXPECT_TRUE(std::isnan(v)) << v;
    }
  }
}

// Squares that overflow float32 make the norm inf even though every value is finite.
TEST(ClipByGlobalNormTest, AnOverflowingNormMakesEveryValueNaN) {
  Graph g;
  DefaultGraphScope as_default(g);
  ClippedTensors result = ClipByGlobalNorm({Constant(Tensor::Vector<float>({3e20f, 1.0f}))}, 1.0);
  ASSERT_EQ(result.clipped.size(), 1u);
  Session session;
  for (float v : session.Run(result.clipped[0]).ToVector<float>()) {
    EXPECT_TRUE(std::isnan(v)) << v;
  }
}

// A null entry (a variable without a gradient) keeps its place and stays null.
TEST(ClipByGlobalNormTest, NullTensorsKeepTheirPlace) {
  Graph g;
  DefaultGraphScope as_default(g);
  ClippedTensors result = ClipByGlobalNorm({A(), Output(), B()}, 6.5);
  ASSERT_EQ(result.clipped.size(), 3u);
  EXPECT_EQ(result.clipped[1].op(), nullptr);
  ASSERT_NE(result.clipped[2].op(), nullptr);
  Session session;
  EXPECT_EQ(session.Run(result.clipped[2]).ToVector<double>(), (std::vector<double>{6.0}));
}

// Float32 gradients give a float32 norm and float32 clipped tensors.
TEST(ClipByGlobalNormTest, KeepsFloat32) {
  Graph g;
  DefaultGraphScope as_default(g);
  ClippedTensors result = ClipByGlobalNorm({Constant(Tensor::Vector<float>({3.0f, 4.0f}))}, 1.0);
  ASSERT_NE(result.global_norm.op(), nullptr) << "no global_norm";
  EXPECT_EQ(result.global_norm.dtype(), DataType::kFloat);
  Session session;
  const std::vector<float> clipped = session.Run(result.clipped[0]).ToVector<float>();
  EXPECT_NEAR(clipped[0], 0.6f, 1e-6f);
  EXPECT_NEAR(clipped[1], 0.8f, 1e-6f);
}

// Between ComputeGradients and ApplyGradients: gradient descent takes a step of length at
// most lr * clip_norm. Here w = [3, 4], loss = sum(w^2), g = [6, 8] of norm 10, clipped to
// length 1: [0.6, 0.8]; with lr = 1 the step lands on [2.4, 3.2].
TEST(ClipByGlobalNormTest, ClipsAnOptimizerStep) {
  Graph g;
  DefaultGraphScope as_default(g);
  Variable w(Tensor::Vector<double>({3.0, 4.0}), "w");
  GradientDescentOptimizer sgd(1.0);
  std::vector<GradAndVar> grads_and_vars = sgd.ComputeGradients(ReduceSum(Square(w)));
  ClippedTensors clipped = ClipByGlobalNorm({grads_and_vars[0].first}, 1.0);
  Operation* train_op = sgd.ApplyGradients({{clipped.clipped[0], grads_and_vars[0].second}});
  Session session;
  session.Run(GlobalVariablesInitializer());
  session.Run(train_op);
  const std::vector<double> after = session.Run(w.value()).ToVector<double>();
  EXPECT_NEAR(after[0], 2.4, 1e-12);
  EXPECT_NEAR(after[1], 3.2, 1e-12);
}

// With nothing to clip, there is nothing to measure: ValueError.
TEST(ClipByGlobalNormTest, AllNullIsAValueError) {
  EXPECT_THROW(ClipByGlobalNorm({Output(), Output()}, 1.0), ValueError);
}

}  // namespace
}  // namespace mts
