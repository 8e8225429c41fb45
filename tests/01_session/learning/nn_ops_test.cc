// Tests of nn_ops.h: Relu, Sigmoid, Tanh and Softmax values, Softmax's numerical stability,
// and the dtype and rank errors, which must name the op.
#include "src/01_session/learning/nn_ops.h"

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/session.h"
#include "tests/01_session/learning/op_test_util.h"

namespace mts {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;
using testing_util::Eval;

using ActivationFn = Output (*)(const Output&, const std::string&);

// Each activation, elementwise, against values worked out by hand (float32 and float64).
TEST(NnOpsTest, ActivationsMatchHandComputedValues) {
  struct Case {
    const char* label;
    ActivationFn op;
    Tensor x, expected;
  };
  const double e = std::exp(1.0);
  const std::vector<Case> cases = {
      {"relu", Relu, Tensor::Vector<float>({-2, 0, 3}), Tensor::Vector<float>({0, 0, 3})},
      {"relu double", Relu, Tensor::Matrix<double>({{-0.5, 0.5}}),
       Tensor::Matrix<double>({{0, 0.5}})},
      // sigmoid(0) = 1/2; sigmoid(1) = e / (1 + e); sigmoid(-x) = 1 - sigmoid(x).
      {"sigmoid", Sigmoid, Tensor::Vector<double>({0, 1, -1}),
       Tensor::Vector<double>({0.5, e / (1 + e), 1 / (1 + e)})},
      // Far out, the ends are exactly 0 and 1, not NaN.
      {"sigmoid saturates", Sigmoid, Tensor::Vector<float>({-1000, 1000}),
       Tensor::Vector<float>({0, 1})},
      // tanh(1) = (e^2 - 1) / (e^2 + 1).
      {"tanh", Tanh, Tensor::Vector<double>({0, 1, -1}),
       Tensor::Vector<double>({0, (e * e - 1) / (e * e + 1), -(e * e - 1) / (e * e + 1)})},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.label);
    Graph g;
    DefaultGraphScope scope(g);
    Output y = c.op(Constant(c.x), "act");
    EXPECT_EQ(y.dtype(), c.x.dtype());
    EXPECT_EQ(y.shape(), c.x.shape());
    Tensor result = Eval(y);
    EXPECT_TRUE(TensorAllClose(result, c.expected)) << result;
  }
}

// Softmax normalises each row along the last axis: [0, ln 2, ln 3] -> [1/6, 2/6, 3/6].
TEST(NnOpsTest, SoftmaxNormalisesEachRow) {
  Graph g;
  DefaultGraphScope scope(g);
  const float ln2 = std::log(2.0f), ln3 = std::log(3.0f);
  Output p = Softmax(Constant(Tensor::Matrix<float>({{0, ln2, ln3}, {5, 5, 5}})));
  EXPECT_TRUE(TensorAllClose(
      Eval(p), Tensor::Matrix<float>({{1.f / 6, 2.f / 6, 3.f / 6}, {1.f / 3, 1.f / 3, 1.f / 3}})));
}

// A vector is one row; a rank-3 tensor is rows along its last axis.
TEST(NnOpsTest, SoftmaxWorksOnTheLastAxisOfAnyRank) {
  Graph g;
  DefaultGraphScope scope(g);
  EXPECT_TRUE(TensorAllClose(Eval(Softmax(Constant(Tensor::Vector<double>({1, 1})))),
                             Tensor::Vector<double>({0.5, 0.5})));
  const double ln3 = std::log(3.0);
  Tensor x = Tensor::FromValues<double>({2, 1, 2}, {0, ln3, ln3, 0});
  EXPECT_TRUE(TensorAllClose(Eval(Softmax(Constant(x))),
                             Tensor::FromValues<double>({2, 1, 2}, {0.25, 0.75, 0.75, 0.25})));
}

// Logits far beyond exp's range still give a distribution: the row max is subtracted first.
TEST(NnOpsTest, SoftmaxIsStableForHugeLogits) {
  Graph g;
  DefaultGraphScope scope(g);
  Tensor p = Eval(Softmax(Constant(Tensor::Matrix<float>({{1000, 1000}, {-1000, 0}}))));
  EXPECT_TRUE(TensorAllClose(p, Tensor::Matrix<float>({{0.5f, 0.5f}, {0, 1}}))) << p;
}

// Integer inputs are a TypeError at build time naming the op.
TEST(NnOpsTest, NonFloatInputIsATypeErrorNamingTheOp) {
  const std::vector<ActivationFn> ops = {Relu, Sigmoid, Tanh, Softmax};
  for (ActivationFn op : ops) {
    Graph g;
    DefaultGraphScope scope(g);
    Output ints = Constant(Tensor::Vector<int32_t>({1, 2}));
    EXPECT_THROW(op(ints, "act"), TypeError);
    EXPECT_THAT([&] { op(ints, "act"); },
                ThrowsMessage<TypeError>(AllOf(HasSubstr("'act'"), HasSubstr("int32"))));
  }
}

// Softmax of a scalar has no axis to normalise: a ValueError naming the op.
TEST(NnOpsTest, SoftmaxOfAScalarIsAValueError) {
  Graph g;
  DefaultGraphScope scope(g);
  EXPECT_THROW(Softmax(Constant(1.0f)), ValueError);
  EXPECT_THAT([&] { Softmax(Constant(1.0f), "probs"); },
              ThrowsMessage<ValueError>(HasSubstr("'probs'")));
}

}  // namespace
}  // namespace mts
