// Every gradient function checked against central finite differences.
//
// Each case builds f(x) = sum(W * op(x)) for a fixed random weighting W (so that every output
// element matters differently), asks Gradients() for df/dx, and compares it element by element
// with (f(x + h e_i) - f(x - h e_i)) / 2h in float64.
#include "src/01_session/learning/gradients.h"

#include <cmath>
#include <functional>
#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/learning/loss_ops.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/learning/nn_ops.h"
#include "src/01_session/op_kernel_context.h"
#include "src/01_session/session.h"

namespace mts {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

Tensor RandomDoubles(const TensorShape& shape, uint64_t seed, double lo, double hi) {
  std::mt19937_64 rng(seed);
  Tensor t(DataType::kDouble, shape);
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    t.data<double>()[i] = lo + (hi - lo) * (static_cast<double>(rng() >> 11) / 9007199254740992.0);
  }
  return t;
}

struct GradCase {
  std::string name;
  std::vector<TensorShape> input_shapes;
  std::function<Output(const std::vector<Output>&)> build;
  double lo = -2, hi = 2;  // Range of the random inputs.
};

// Checks d sum(W * build(xs)) / d xs[i] for every input against finite differences.
void CheckGradients(const GradCase& c) {
  SCOPED_TRACE(c.name);
  Graph g;
  DefaultGraphScope scope(g);
  std::vector<Output> xs;
  FeedDict feeds;
  for (size_t i = 0; i < c.input_shapes.size(); ++i) {
    xs.push_back(Placeholder(DataType::kDouble, c.input_shapes[i], "x" + std::to_string(i)));
    feeds[xs.back()] = RandomDoubles(c.input_shapes[i], 17 + i, c.lo, c.hi);
  }
  Output y = c.build(xs);
  Session probe(&g);
  const TensorShape y_shape = probe.Run(y, feeds).shape();
  Output f = ReduceSum(Mul(y, Constant(RandomDoubles(y_shape, 99, 0.5, 1.5))));
  std::vector<Output> grads = Gradients({f}, xs);
  Session session(&g);
  for (size_t i = 0; i < xs.size(); ++i) {
    ASSERT_NE(grads[i].op(), nullptr) << "no gradient for input " << i;
    Tensor analytic = session.Run(grads[i], feeds);
    ASSERT_EQ(analytic.shape(), c.input_shapes[i]);
    Tensor x = feeds[xs[i]];
    for (int64_t k = 0; k < x.num_elements(); ++k) {
      const double h = 1e-6, orig = x.data<double>()[k];
      FeedDict plus = feeds, minus = feeds;
      Tensor xp = x.Copy(), xm = x.Copy();
      xp.data<double>()[k] = orig + h;
      xm.data<double>()[k] = orig - h;
      plus[xs[i]] = xp;
      minus[xs[i]] = xm;
      const double numeric =
          (session.Run(f, plus).scalar<double>() - session.Run(f, minus).scalar<double>()) /
          (2 * h);
      EXPECT_NEAR(analytic.data<double>()[k], numeric, 1e-5 * (1 + std::abs(numeric)))
          << "input " << i << " element " << k;
    }
  }
}

// Names the case in test output instead of dumping its bytes.
void PrintTo(const GradCase& c, std::ostream* os) { *os << c.name; }

using X = const std::vector<Output>&;
const TensorShape kMat{3, 4}, kRow{4}, kRow1{1, 4}, kScalar{};

class GradientCheckTest : public ::testing::TestWithParam<GradCase> {};

// Analytic gradients equal numerical ones for every differentiable op.
TEST_P(GradientCheckTest, MatchesCentralFiniteDifferences) { CheckGradients(GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    AllOps, GradientCheckTest,
    ::testing::Values(
        GradCase{"Add", {kMat, kMat}, [](X x) { return Add(x[0], x[1]); }},
        GradCase{"AddRow", {kMat, kRow}, [](X x) { return Add(x[0], x[1]); }},
        GradCase{"AddRowLeft", {kRow1, kMat}, [](X x) { return Add(x[0], x[1]); }},
        GradCase{"AddScalar", {kScalar, kMat}, [](X x) { return Add(x[0], x[1]); }},
        GradCase{"Sub", {kMat, kRow}, [](X x) { return Sub(x[0], x[1]); }},
        GradCase{"Mul", {kMat, kMat}, [](X x) { return Mul(x[0], x[1]); }},
        GradCase{"MulScalar", {kMat, kScalar}, [](X x) { return Mul(x[0], x[1]); }},
        GradCase{"Div", {kMat, kRow}, [](X x) { return Div(x[0], x[1]); }, 0.5, 2},
        GradCase{"Neg", {kMat}, [](X x) { return Neg(x[0]); }},
        GradCase{"Square", {kMat}, [](X x) { return Square(x[0]); }},
        GradCase{"Sqrt", {kMat}, [](X x) { return Sqrt(x[0]); }, 0.5, 2},
        GradCase{"Exp", {kMat}, [](X x) { return Exp(x[0]); }},
        GradCase{"Log", {kMat}, [](X x) { return Log(x[0]); }, 0.5, 2},
        GradCase{"MatMul", {{3, 4}, {4, 2}}, [](X x) { return MatMul(x[0], x[1]); }},
        GradCase{"MatMulTA", {{4, 3}, {4, 2}}, [](X x) { return MatMul(x[0], x[1], true); }},
        GradCase{"MatMulTB", {{3, 4}, {2, 4}},
                 [](X x) { return MatMul(x[0], x[1], false, true); }},
        GradCase{"MatMulTATB", {{4, 3}, {2, 4}},
                 [](X x) { return MatMul(x[0], x[1], true, true); }},
        GradCase{"SumAll", {kMat}, [](X x) { return ReduceSum(x[0]); }},
        GradCase{"SumAxis0", {kMat}, [](X x) { return ReduceSum(x[0], 0); }},
        GradCase{"SumAxis1Keep", {kMat}, [](X x) { return ReduceSum(x[0], -1, true); }},
        GradCase{"MeanAll", {kMat}, [](X x) { return ReduceMean(x[0]); }},
        GradCase{"MeanAxis1", {{2, 3, 4}}, [](X x) { return ReduceMean(x[0], 1); }},
        GradCase{"MaxAxis1", {kMat}, [](X x) { return ReduceMax(x[0], 1); }},
        GradCase{"MaxAll", {kMat}, [](X x) { return ReduceMax(x[0]); }},
        GradCase{"Reshape", {kMat}, [](X x) { return Reshape(x[0], {2, -1}); }},
        GradCase{"Identity", {kMat}, [](X x) { return Identity(x[0]); }},
        GradCase{"CheckNumerics", {kMat}, [](X x) { return CheckNumerics(x[0], "m"); }},
        GradCase{"FanOutSumsContributions", {kMat},
                 [](X x) { return Add(Mul(x[0], x[0]), Exp(x[0])); }},
        GradCase{"Relu", {kMat}, [](X x) { return Relu(x[0]); }},
        GradCase{"Sigmoid", {kMat}, [](X x) { return Sigmoid(x[0]); }},
        GradCase{"Tanh", {kMat}, [](X x) { return Tanh(x[0]); }},
        GradCase{"Softmax", {kMat}, [](X x) { return Softmax(x[0]); }},
        GradCase{"SoftmaxCrossEntropy", {kMat},
                 [](X x) {
                   Tensor labels = Tensor::Matrix<double>(
                       {{0, 1, 0, 0}, {0.5, 0, 0.5, 0}, {0, 0, 0, 1}});
                   return SoftmaxCrossEntropyWithLogits(Constant(labels), x[0]);
                 }},
        GradCase{"SparseSoftmaxCrossEntropy", {kMat},
                 [](X x) {
                   return SparseSoftmaxCrossEntropyWithLogits(
                       Constant(Tensor::Vector<int64_t>({1, 3, 0})), x[0]);
                 }},
        GradCase{"MlpLayer", {{3, 2}, {2, 4}, {4}},
                 [](X x) { return Tanh(Add(MatMul(x[0], x[1]), x[2])); }}),
    [](const ::testing::TestParamInfo<GradCase>& info) { return info.param.name; });

// An op type registered without a gradient function, to show the error.
const OpRegistration no_gradient_op({"TestNoGradient",
                                     [](ShapeContext& c) {
                                       c.AddOutput(c.inputs[0].dtype(), c.inputs[0].shape());
                                     },
                                     [](OpKernelContext& c) { c.set_output(0, c.input(0)); }});

// A path through an op type with no gradient function fails, naming the op.
TEST(GradientsTest, PathThroughOpWithoutGradientRaisesNamingTheOp) {
  Graph g;
  DefaultGraphScope scope(g);
  Output x = Placeholder(DataType::kDouble, {2}, "x");
  Output y = g.AddOperation("TestNoGradient", "opaque", {x})->output(0);
  EXPECT_THAT([&] { Gradients({ReduceSum(y)}, {x}); },
              ThrowsMessage<ValueError>(HasSubstr("No gradient defined for operation 'opaque'")));
}

// Non-differentiable ops stop the gradient: x reaches y only through ArgMax.
TEST(GradientsTest, NonDifferentiableOpStopsGradient) {
  Graph g;
  DefaultGraphScope scope(g);
  Output x = Placeholder(DataType::kDouble, {2, 3}, "x");
  Output y = Cast(ArgMax(x, 1), DataType::kDouble);
  std::vector<Output> grads = Gradients({ReduceSum(y)}, {x});
  EXPECT_EQ(grads[0].op(), nullptr);
}

// An x that y does not depend on gets a null gradient, as TensorFlow returns None.
TEST(GradientsTest, UnconnectedInputGetsNullGradient) {
  Graph g;
  DefaultGraphScope scope(g);
  Output x = Placeholder(DataType::kDouble, {2}, "x");
  Output unused = Placeholder(DataType::kDouble, {2}, "unused");
  std::vector<Output> grads = Gradients({ReduceSum(Square(x))}, {x, unused});
  EXPECT_NE(grads[0].op(), nullptr);
  EXPECT_EQ(grads[1].op(), nullptr);
}

// Gradient ops live under the "gradients" name scope, so graph dumps stay readable.
TEST(GradientsTest, GradientOpsAreNamedUnderGradientsScope) {
  Graph g;
  DefaultGraphScope scope(g);
  Output x = Placeholder(DataType::kDouble, {2}, "x");
  std::vector<Output> grads = Gradients({ReduceSum(Square(x))}, {x});
  EXPECT_EQ(grads[0].op()->name().rfind("gradients/", 0), 0u) << grads[0].op()->name();
}

// Each op's gradient ops go under "<op>_grad" inside the "gradients" scope, as TensorFlow
// names them (gradients/Square_grad/...), so a graph dump shows which op they differentiate.
TEST(GradientsTest, AnOpsGradientOpsAreUnderItsGradScope) {
  Graph g;
  DefaultGraphScope scope(g);
  Output x = Placeholder(DataType::kDouble, {2}, "x");
  std::vector<Output> grads = Gradients({ReduceSum(Square(x, "sq"))}, {x});
  EXPECT_EQ(grads[0].op()->name().rfind("gradients/sq_grad/", 0), 0u) << grads[0].op()->name();
}

// grad_ys seed the walk: the gradient of each y starts as the given tensor, not as ones.
TEST(GradientsTest, GradYsSeedTheGradientsOfTheYs) {
  Graph g;
  DefaultGraphScope scope(g);
  Output x = Placeholder(DataType::kDouble, {2}, "x");
  Output y = Square(x);
  std::vector<Output> grads =
      Gradients({y}, {x}, {Constant(Tensor::Vector<double>({10.0, 100.0}))});
  Session session(&g);
  const Tensor value = session.Run(grads[0], {{x, Tensor::Vector<double>({1.0, 2.0})}});
  EXPECT_EQ(value.ToVector<double>(), (std::vector<double>{20.0, 400.0}));
}

// The op that makes an x is where the walk stops: no gradient is looked up for it (nothing
// upstream of x wants one), so an x made by an op without a gradient function still gets
// its gradient, as in TensorFlow, where such an op is a stop op.
TEST(GradientsTest, TheOpThatMakesAnXNeedsNoGradient) {
  Graph g;
  DefaultGraphScope scope(g);
  Output c = Placeholder(DataType::kDouble, {2}, "c");
  Output x = g.AddOperation("TestNoGradient", "opaque_x", {c})->output(0);
  std::vector<Output> grads = Gradients({ReduceSum(Square(x))}, {x});
  ASSERT_NE(grads[0].op(), nullptr);
  Session session(&g);
  const Tensor value = session.Run(grads[0], {{c, Tensor::Vector<double>({1.0, 3.0})}});
  EXPECT_EQ(value.ToVector<double>(), (std::vector<double>{2.0, 6.0}));
}

// OnesLike takes the dtype of its input at build time and the shape at run time, so it can
// seed the gradient of a y whose shape is known only once fed.
TEST(GradientsTest, OnesLikeHasTheInputsDtypeAndRunTimeShape) {
  Graph g;
  DefaultGraphScope scope(g);
  Output x = Placeholder(DataType::kInt32, TensorShape::Unknown(), "x");
  Output ones = OnesLike(x);
  EXPECT_EQ(ones.dtype(), DataType::kInt32);
  Session session;
  const Tensor value =
      session.Run(ones, {{x, Tensor::FromValues<int32_t>({2, 3}, {7, 8, 9, 10, 11, 12})}});
  EXPECT_EQ(value.shape(), TensorShape({2, 3}));
  EXPECT_EQ(value.ToVector<int32_t>(), std::vector<int32_t>(6, 1));
}

}  // namespace
}  // namespace mts
