// tanh_gradient_test.cc: decides whether the tanh_gradient exercise of chapter 01 is done.
//
// The check is the one every gradient in stage 01 passes: compare the gradient Gradients()
// builds with central finite differences, (f(x + h) - f(x - h)) / 2h, element by element.
#include "chapters/01_session/exercises/tanh_gradient/tanh_gradient.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "src/01_session/array_ops.h"
#include "src/01_session/learning/gradients.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/session.h"

namespace mts {
namespace {

// Points on both sides of 0, near it and out where tanh flattens.
const std::vector<double> kPoints = {-2.5, -1.0, -0.3, 0.0, 0.4, 1.2, 3.0};

// Checks d sum(weights * f(x)) / dx against finite differences, for x = kPoints.
void ExpectMatchesFiniteDifferences(Output (*f)(const Output&)) {
  Graph g;
  DefaultGraphScope as_default(g);
  const int64_t n = static_cast<int64_t>(kPoints.size());
  Output x = Placeholder(DataType::kDouble, {n}, "x");
  // Different weights per element, so a gradient in the wrong place cannot pass.
  std::vector<double> weights;
  for (int64_t i = 0; i < n; ++i) weights.push_back(0.5 + 0.25 * static_cast<double>(i));
  Output loss = ReduceSum(Mul(f(x), Constant(Tensor::Vector<double>(weights))));
  std::vector<Output> grads = Gradients({loss}, {x});
  ASSERT_NE(grads[0].op(), nullptr) << "Gradients() found no gradient: TanhExGrad returned "
                                       "an empty Output";
  Session session;
  const Tensor analytic = session.Run(grads[0], {{x, Tensor::Vector<double>(kPoints)}});
  ASSERT_EQ(analytic.shape(), TensorShape{n});
  for (int64_t i = 0; i < n; ++i) {
    const double h = 1e-6;
    std::vector<double> plus = kPoints, minus = kPoints;
    plus[i] += h;
    minus[i] -= h;
    const double numeric =
        (session.Run(loss, {{x, Tensor::Vector<double>(plus)}}).scalar<double>() -
         session.Run(loss, {{x, Tensor::Vector<double>(minus)}}).scalar<double>()) /
        (2 * h);
    EXPECT_NEAR(analytic.data<double>()[i], numeric, 1e-6) << "at x = " << kPoints[i];
  }
}

// The gradient of one TanhEx matches finite differences.
TEST(TanhGradientTest, MatchesFiniteDifferences) {
  ExpectMatchesFiniteDifferences([](const Output& x) { return TanhEx(x); });
}

// Through two TanhEx ops in a row, the chain rule applies your function twice.
TEST(TanhGradientTest, ChainsThroughTwoTanhs) {
  ExpectMatchesFiniteDifferences([](const Output& x) { return TanhEx(TanhEx(x)); });
}

// Gradients from two consumers of one TanhEx are summed before your function sees them.
TEST(TanhGradientTest, WorksWhenTheOutputIsUsedTwice) {
  ExpectMatchesFiniteDifferences([](const Output& x) {
    Output y = TanhEx(x);
    return Add(Mul(y, y), y);
  });
}

// At x = 0 the slope of tanh is exactly 1; far out it is almost 0.
TEST(TanhGradientTest, SlopeIsOneAtZeroAndVanishesFarOut) {
  Graph g;
  DefaultGraphScope as_default(g);
  Output x = Constant(Tensor::Vector<double>({0.0, 20.0}));
  std::vector<Output> grads = Gradients({ReduceSum(TanhEx(x))}, {x});
  ASSERT_NE(grads[0].op(), nullptr);
  Session session;
  const std::vector<double> slope = session.Run(grads[0]).ToVector<double>();
  EXPECT_DOUBLE_EQ(slope[0], 1.0);
  EXPECT_NEAR(slope[1], 0.0, 1e-15);
}

// Works in float32 too: the gradient has the input's dtype.
TEST(TanhGradientTest, KeepsFloat32) {
  Graph g;
  DefaultGraphScope as_default(g);
  Output x = Constant(Tensor::Vector<float>({0.5f}));
  std::vector<Output> grads = Gradients({ReduceSum(TanhEx(x))}, {x});
  ASSERT_NE(grads[0].op(), nullptr);
  EXPECT_EQ(grads[0].dtype(), DataType::kFloat);
  Session session;
  const float t = std::tanh(0.5f);
  EXPECT_NEAR(session.Run(grads[0]).ToVector<float>()[0], 1.0f - t * t, 1e-6f);
}

// The forward pass computed tanh(x) already: the gradient reuses it instead of computing
// tanh again, so the graph holds one TanhEx, the forward one, and no fused gradient op.
TEST(TanhGradientTest, ReusesTheForwardOutput) {
  Graph g;
  DefaultGraphScope as_default(g);
  Output x = Placeholder(DataType::kDouble, {3}, "x");
  std::vector<Output> grads = Gradients({ReduceSum(TanhEx(x))}, {x});
  ASSERT_NE(grads[0].op(), nullptr);
  int tanh_ops = 0;
  for (const Operation* op : g.operations()) {
    if (op->type() == "TanhEx") ++tanh_ops;
    EXPECT_NE(op->type(), "TanhGrad") << "stage 01's fused TanhGrad cannot be differentiated";
  }
  EXPECT_EQ(tanh_ops, 1);
}

// The gradient is itself differentiable: d2/dx2 tanh(x) = -2 y (1 - y^2) with y = tanh(x).
// Stage 01's own Tanh uses a fused TanhGrad op with no gradient; ordinary ops have one.
TEST(TanhGradientTest, CanBeDifferentiatedAgain) {
  Graph g;
  DefaultGraphScope as_default(g);
  const int64_t n = static_cast<int64_t>(kPoints.size());
  Output x = Placeholder(DataType::kDouble, {n}, "x");
  std::vector<Output> first = Gradients({ReduceSum(TanhEx(x))}, {x});
  ASSERT_NE(first[0].op(), nullptr);
  std::vector<Output> second = Gradients({ReduceSum(first[0])}, {x});
  ASSERT_NE(second[0].op(), nullptr);
  Session session;
  const std::vector<double> curvature =
      session.Run(second[0], {{x, Tensor::Vector<double>(kPoints)}}).ToVector<double>();
  for (int64_t i = 0; i < n; ++i) {
    const double y = std::tanh(kPoints[i]);
    EXPECT_NEAR(curvature[i], -2.0 * y * (1.0 - y * y), 1e-12) << "at x = " << kPoints[i];
  }
}

// Checks the gradients of sum(weights * MaximumEx(x, y)) with respect to x and y against
// finite differences, at points where x != y.
TEST(MaximumGradientTest, MatchesFiniteDifferencesAwayFromTies) {
  Graph g;
  DefaultGraphScope as_default(g);
  const std::vector<double> xs = {1.0, -2.0, 3.0, 0.25};
  const std::vector<double> ys = {0.5, 4.0, -1.0, 0.75};
  const int64_t n = static_cast<int64_t>(xs.size());
  Output x = Placeholder(DataType::kDouble, {n}, "x");
  Output y = Placeholder(DataType::kDouble, {n}, "y");
  Output loss =
      ReduceSum(Mul(MaximumEx(x, y), Constant(Tensor::Vector<double>({0.5, 0.75, 1.0, 1.25}))));
  std::vector<Output> grads = Gradients({loss}, {x, y});
  ASSERT_NE(grads[0].op(), nullptr) << "no gradient for x";
  ASSERT_NE(grads[1].op(), nullptr) << "no gradient for y";
  Session session;
  auto loss_at = [&](const std::vector<double>& xv, const std::vector<double>& yv) {
    return session.Run(loss, {{x, Tensor::Vector<double>(xv)}, {y, Tensor::Vector<double>(yv)}})
        .scalar<double>();
  };
  const std::vector<Tensor> analytic =
      session.Run(grads, {{x, Tensor::Vector<double>(xs)}, {y, Tensor::Vector<double>(ys)}});
  for (int64_t i = 0; i < n; ++i) {
    const double h = 1e-6;
    std::vector<double> xp = xs, xm = xs, yp = ys, ym = ys;
    xp[i] += h;
    xm[i] -= h;
    yp[i] += h;
    ym[i] -= h;
    EXPECT_NEAR(analytic[0].data<double>()[i], (loss_at(xp, ys) - loss_at(xm, ys)) / (2 * h), 1e-6)
        << "d/dx at " << i;
    EXPECT_NEAR(analytic[1].data<double>()[i], (loss_at(xs, yp) - loss_at(xs, ym)) / (2 * h), 1e-6)
        << "d/dy at " << i;
  }
}

// At a tie, all of the gradient goes to x, as in TensorFlow, and none is lost or doubled.
TEST(MaximumGradientTest, ATieGivesEverythingToX) {
  Graph g;
  DefaultGraphScope as_default(g);
  Output x = Constant(Tensor::Vector<double>({1.0, -2.0}));
  Output y = Constant(Tensor::Vector<double>({1.0, -2.0}));
  Output weights = Constant(Tensor::Vector<double>({0.5, 0.75}));
  std::vector<Output> grads = Gradients({ReduceSum(Mul(MaximumEx(x, y), weights))}, {x, y});
  ASSERT_NE(grads[0].op(), nullptr);
  ASSERT_NE(grads[1].op(), nullptr);
  Session session;
  EXPECT_EQ(session.Run(grads[0]).ToVector<double>(), (std::vector<double>{0.5, 0.75}));
  EXPECT_EQ(session.Run(grads[1]).ToVector<double>(), (std::vector<double>{0.0, 0.0}));
}

// max(x, x) is x, so its slope is 1: the two halves of the gradient meet again in x.
TEST(MaximumGradientTest, TheMaximumOfATensorWithItselfHasSlopeOne) {
  Graph g;
  DefaultGraphScope as_default(g);
  Output x = Constant(Tensor::Vector<double>({-1.0, 0.0, 2.0}));
  std::vector<Output> grads = Gradients({ReduceSum(MaximumEx(x, x))}, {x});
  ASSERT_NE(grads[0].op(), nullptr);
  Session session;
  EXPECT_EQ(session.Run(grads[0]).ToVector<double>(), (std::vector<double>{1.0, 1.0, 1.0}));
}

// The two ops together: max(tanh(x), 0.1), a tanh with a floor, against finite
// differences (no point of kPoints has tanh(x) = 0.1, so there is no tie).
TEST(MaximumGradientTest, ChainsWithTanh) {
  ExpectMatchesFiniteDifferences([](const Output& x) {
    Output t = TanhEx(x);
    Output floor = Add(Mul(t, Constant(Tensor::Scalar(0.0))), Constant(Tensor::Scalar(0.1)));
    return MaximumEx(t, floor);
  });
}

}  // namespace
}  // namespace mts
