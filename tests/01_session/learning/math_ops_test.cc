// Tests of math_ops.h: each op's values against hand-computed ones, the broadcasting rules,
// and every build-time shape and dtype error, which must name the op at fault.
#include "src/01_session/learning/math_ops.h"

#include <cmath>
#include <functional>
#include <limits>
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
using testing_util::kUnknown;

using BinaryFn = Output (*)(const Output&, const Output&, const std::string&);

struct BinaryCase {
  const char* label;
  BinaryFn op;
  Tensor x, y, expected;
};

// ---- Elementwise arithmetic and broadcasting ----------------------------------------------

// The four arithmetic ops compute elementwise on equal shapes, and broadcast a scalar or a
// row ([M] or [1,M]) on either side; the operand order is kept (10 - x, not x - 10).
TEST(MathOpsTest, BinaryArithmeticMatchesHandComputedValues) {
  const std::vector<BinaryCase> cases = {
      {"add float", Add, Tensor::Vector<float>({1, 2, 3}), Tensor::Vector<float>({10, 20, 30}),
       Tensor::Vector<float>({11, 22, 33})},
      {"sub int32", Sub, Tensor::Vector<int32_t>({5, 7}), Tensor::Vector<int32_t>({1, 2}),
       Tensor::Vector<int32_t>({4, 5})},
      {"mul int64", Mul, Tensor::Vector<int64_t>({2, 3}), Tensor::Vector<int64_t>({4, 5}),
       Tensor::Vector<int64_t>({8, 15})},
      {"div float", Div, Tensor::Vector<float>({1, 3}), Tensor::Vector<float>({2, 4}),
       Tensor::Vector<float>({0.5f, 0.75f})},
      {"scalar + matrix", Add, Tensor::Scalar(1.0), Tensor::Matrix<double>({{1, 2}, {3, 4}}),
       Tensor::Matrix<double>({{2, 3}, {4, 5}})},
      {"matrix - scalar", Sub, Tensor::Matrix<double>({{1, 2}, {3, 4}}), Tensor::Scalar(1.0),
       Tensor::Matrix<double>({{0, 1}, {2, 3}})},
      {"scalar - vector", Sub, Tensor::Scalar(10), Tensor::Vector<int32_t>({1, 2}),
       Tensor::Vector<int32_t>({9, 8})},
      {"matrix / row", Div, Tensor::Matrix<float>({{2, 4}, {6, 8}}), Tensor::Vector<float>({2, 4}),
       Tensor::Matrix<float>({{1, 1}, {3, 2}})},
      {"row / matrix", Div, Tensor::Vector<float>({2, 4}), Tensor::Matrix<float>({{1, 2}, {4, 8}}),
       Tensor::Matrix<float>({{2, 2}, {0.5f, 0.5f}})},
      {"matrix - [1,M]", Sub, Tensor::Matrix<int64_t>({{1, 2}, {3, 4}}),
       Tensor::Matrix<int64_t>({{1, 1}}), Tensor::Matrix<int64_t>({{0, 1}, {2, 3}})},
      {"[1,M] - matrix", Sub, Tensor::Matrix<int64_t>({{10, 20}}),
       Tensor::Matrix<int64_t>({{1, 2}, {3, 4}}), Tensor::Matrix<int64_t>({{9, 18}, {7, 16}})},
      {"[1,M] * [M]", Mul, Tensor::Matrix<float>({{1, 2}}), Tensor::Vector<float>({10, 20}),
       Tensor::Matrix<float>({{10, 40}})},
  };
  for (const BinaryCase& c : cases) {
    SCOPED_TRACE(c.label);
    Graph g;
    DefaultGraphScope scope(g);
    EXPECT_TRUE(TensorEqual(Eval(c.op(Constant(c.x), Constant(c.y), "op")), c.expected));
  }
}

// The comparisons broadcast the same way and yield bool; Equal and NotEqual also accept bool
// and string operands.
TEST(MathOpsTest, ComparisonsYieldBoolElementwise) {
  const Tensor a = Tensor::Vector<float>({1, 2, 3});
  const Tensor b = Tensor::Vector<float>({2, 2, 2});
  auto bools = [](std::vector<bool> v) {
    Tensor t(DataType::kBool, TensorShape{static_cast<int64_t>(v.size())});
    for (size_t i = 0; i < v.size(); ++i) t.data<bool>()[i] = v[i];
    return t;
  };
  const std::vector<BinaryCase> cases = {
      {"less", Less, a, b, bools({true, false, false})},
      {"less_equal", LessEqual, a, b, bools({true, true, false})},
      {"greater", Greater, a, b, bools({false, false, true})},
      {"greater_equal", GreaterEqual, a, b, bools({false, true, true})},
      {"equal", Equal, a, b, bools({false, true, false})},
      {"not_equal", NotEqual, a, b, bools({true, false, true})},
      {"int vs scalar", Less, Tensor::Vector<int32_t>({1, 5}), Tensor::Scalar(3),
       bools({true, false})},
      {"equal bool", Equal, bools({true, false}), bools({true, true}), bools({true, false})},
      {"equal string", Equal, Tensor::Vector<std::string>({"a", "b"}),
       Tensor::Vector<std::string>({"a", "c"}), bools({true, false})},
      {"not_equal string", NotEqual, Tensor::Vector<std::string>({"a", "b"}),
       Tensor::Scalar(std::string("a")), bools({false, true})},
  };
  for (const BinaryCase& c : cases) {
    SCOPED_TRACE(c.label);
    Graph g;
    DefaultGraphScope scope(g);
    Output z = c.op(Constant(c.x), Constant(c.y), "op");
    EXPECT_EQ(z.dtype(), DataType::kBool);
    EXPECT_TRUE(TensorEqual(Eval(z), c.expected));
  }
}

// A comparison of a matrix with a row compares every row with it.
TEST(MathOpsTest, ComparisonBroadcastsARow) {
  Graph g;
  DefaultGraphScope scope(g);
  Output z = Greater(Constant(Tensor::Matrix<int64_t>({{1, 5}, {3, 2}})),
                     Constant(Tensor::Vector<int64_t>({2, 3})));
  Tensor result = Eval(z);
  EXPECT_EQ(result.shape(), TensorShape({2, 2}));
  EXPECT_EQ(result.at<bool>({0, 0}), false);
  EXPECT_EQ(result.at<bool>({0, 1}), true);
  EXPECT_EQ(result.at<bool>({1, 0}), true);
  EXPECT_EQ(result.at<bool>({1, 1}), false);
}

// The static output shape follows the broadcasting rules, keeping what is known.
TEST(MathOpsTest, BroadcastShapesAreInferredAtBuildTime) {
  struct Case {
    TensorShape x, y, expected;
  };
  const std::vector<Case> cases = {
      {{2, 3}, {2, 3}, {2, 3}},
      {{}, {2, 3}, {2, 3}},
      {{2, 3}, {}, {2, 3}},
      {{2, 3}, {3}, {2, 3}},
      {{3}, {2, 3}, {2, 3}},
      {{2, 3}, {1, 3}, {2, 3}},
      {{1, 3}, {2, 3}, {2, 3}},
      {{kUnknown, 3}, {3}, {kUnknown, 3}},
      {{1, 3}, {kUnknown, 3}, {kUnknown, 3}},
      {{kUnknown, kUnknown}, {2, 3}, {2, 3}},
      {TensorShape::Unknown(), {3}, TensorShape::Unknown()},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.x.ToString() + " with " + c.y.ToString());
    Graph g;
    DefaultGraphScope scope(g);
    Output z = Add(Placeholder(DataType::kFloat, c.x), Placeholder(DataType::kFloat, c.y));
    EXPECT_EQ(z.shape(), c.expected);
  }
}

// Shapes outside the rules are a ValueError at build time naming the op and both shapes.
TEST(MathOpsTest, UnbroadcastableShapesAreAValueErrorNamingTheOp) {
  const std::vector<std::pair<TensorShape, TensorShape>> cases = {
      {{2, 3}, {2}}, {{2, 3}, {3, 2}}, {{3}, {4}}, {{2, 3}, {2, 1}}, {{2, 3, 4}, {4}},
  };
  for (const auto& [x, y] : cases) {
    SCOPED_TRACE(x.ToString() + " with " + y.ToString());
    Graph g;
    DefaultGraphScope scope(g);
    Output a = Placeholder(DataType::kFloat, x);
    Output b = Placeholder(DataType::kFloat, y);
    EXPECT_THROW(Mul(a, b, "product"), ValueError);
    EXPECT_THAT([&] { Mul(a, b, "product"); },
                ThrowsMessage<ValueError>(AllOf(HasSubstr("'product'"), HasSubstr(x.ToString()),
                                                HasSubstr(y.ToString()))));
    EXPECT_EQ(g.FindOperation("product"), nullptr);  // The graph is unchanged.
  }
}

// Differing dimensions say so in TensorFlow's words.
TEST(MathOpsTest, DifferingDimensionsMustBeEqual) {
  Graph g;
  DefaultGraphScope scope(g);
  Output a = Placeholder(DataType::kFloat, {3});
  Output b = Placeholder(DataType::kFloat, {4});
  EXPECT_THAT([&] { Add(a, b); },
              ThrowsMessage<ValueError>(
                  HasSubstr("Dimensions must be equal, but are 3 and 4 for 'Add' (op: Add)")));
}

// Dimensions unknown at build time are checked when the op runs.
TEST(MathOpsTest, IncompatibleRunTimeShapesAreInvalidArgument) {
  Graph g;
  DefaultGraphScope scope(g);
  Output a = Placeholder(DataType::kFloat, {kUnknown, kUnknown});
  Output b = Placeholder(DataType::kFloat, {kUnknown, kUnknown});
  Output sum = Add(a, b, "sum");
  FeedDict feeds = {{a, Tensor::Zeros(DataType::kFloat, {2, 3})},
                    {b, Tensor::Zeros(DataType::kFloat, {3, 2})}};
  EXPECT_THROW(Eval(sum, feeds), InvalidArgumentError);
  EXPECT_THAT([&] { Eval(sum, feeds); },
              ThrowsMessage<InvalidArgumentError>(
                  AllOf(HasSubstr("Incompatible shapes: [2,3] vs. [3,2]"), HasSubstr("sum"))));
}

// Mixed dtypes, and dtypes an op does not take, are a TypeError at build time naming the op.
TEST(MathOpsTest, WrongDtypesAreATypeErrorNamingTheOp) {
  struct Case {
    const char* label;
    std::function<void()> build;
  };
  auto c = [](auto v) { return Constant(Tensor::Scalar(v)); };
  const std::vector<Case> cases = {
      {"float + int", [&] { Add(c(1.0f), c(1), "bad"); }},
      {"bool + bool", [&] { Add(c(true), c(false), "bad"); }},
      {"string - string", [&] { Sub(c(std::string("a")), c(std::string("b")), "bad"); }},
      {"int / int", [&] { Div(c(1), c(2), "bad"); }},
      {"neg bool", [&] { Neg(c(true), "bad"); }},
      {"square string", [&] { Square(c(std::string("a")), "bad"); }},
      {"sqrt int", [&] { Sqrt(c(4), "bad"); }},
      {"exp int64", [&] { Exp(c(int64_t{1}), "bad"); }},
      {"log int", [&] { Log(c(1), "bad"); }},
      {"less bool", [&] { Less(c(true), c(false), "bad"); }},
      {"equal float vs double", [&] { Equal(c(1.0f), c(1.0), "bad"); }},
      {"matmul float x double",
       [&] { MatMul(Constant(Tensor::Zeros(DataType::kFloat, {1, 1})),
                    Constant(Tensor::Zeros(DataType::kDouble, {1, 1})), false, false, "bad"); }},
      {"matmul bool",
       [&] { MatMul(Constant(Tensor::Zeros(DataType::kBool, {1, 1})),
                    Constant(Tensor::Zeros(DataType::kBool, {1, 1})), false, false, "bad"); }},
      {"sum bool", [&] { ReduceSum(c(true), std::nullopt, false, "bad"); }},
      {"argmax string", [&] { ArgMax(Constant(Tensor::Vector<std::string>({"a"})), 0, "bad"); }},
      {"check_numerics int", [&] { CheckNumerics(c(1), "msg", "bad"); }},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.label);
    Graph g;
    DefaultGraphScope scope(g);
    EXPECT_THROW(tc.build(), TypeError);
    EXPECT_THAT(tc.build, ThrowsMessage<TypeError>(HasSubstr("'bad'")));
  }
}

// Div adds an op of TensorFlow's type RealDiv, named as tf.divide names it.
TEST(MathOpsTest, DivIsRealDivNamedTruediv) {
  Graph g;
  DefaultGraphScope scope(g);
  Output q = Div(Constant(1.0f), Constant(2.0f));
  EXPECT_EQ(q.op()->type(), "RealDiv");
  EXPECT_EQ(q.op()->name(), "truediv");
}

// ---- Unary arithmetic -----------------------------------------------------------------------

// Neg, Square, Sqrt, Exp and Log compute elementwise.
TEST(MathOpsTest, UnaryOpsMatchHandComputedValues) {
  using UnaryFn = Output (*)(const Output&, const std::string&);
  struct Case {
    const char* label;
    UnaryFn op;
    Tensor x, expected;
  };
  const std::vector<Case> cases = {
      {"neg int32", Neg, Tensor::Vector<int32_t>({1, -2}), Tensor::Vector<int32_t>({-1, 2})},
      {"neg float", Neg, Tensor::Vector<float>({0.5f}), Tensor::Vector<float>({-0.5f})},
      {"square int64", Square, Tensor::Vector<int64_t>({-3, 4}), Tensor::Vector<int64_t>({9, 16})},
      {"square double", Square, Tensor::Vector<double>({1.5}), Tensor::Vector<double>({2.25})},
      {"sqrt", Sqrt, Tensor::Vector<float>({4, 9, 0}), Tensor::Vector<float>({2, 3, 0})},
      {"exp", Exp, Tensor::Vector<double>({0, 1}), Tensor::Vector<double>({1, M_E})},
      {"log", Log, Tensor::Vector<float>({1, static_cast<float>(M_E)}),
       Tensor::Vector<float>({0, 1})},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.label);
    Graph g;
    DefaultGraphScope scope(g);
    Output y = c.op(Constant(c.x), "op");
    EXPECT_EQ(y.shape(), c.x.shape());
    EXPECT_TRUE(TensorAllClose(Eval(y), c.expected)) << Eval(y);
  }
}

// Outside their domains Sqrt and Log give NaN and -inf, as in C, rather than raising.
TEST(MathOpsTest, SqrtAndLogOutsideTheirDomainGiveNanAndInf) {
  Graph g;
  DefaultGraphScope scope(g);
  Output x = Constant(Tensor::Vector<double>({-1, 0}));
  std::vector<double> roots = Eval(Sqrt(x)).ToVector<double>();
  std::vector<double> logs = Eval(Log(x)).ToVector<double>();
  EXPECT_TRUE(std::isnan(roots[0]));
  EXPECT_TRUE(std::isnan(logs[0]));
  EXPECT_EQ(logs[1], -std::numeric_limits<double>::infinity());
}

// ---- CheckNumerics --------------------------------------------------------------------------

// Finite values pass through CheckNumerics unchanged, without a copy.
TEST(MathOpsTest, CheckNumericsPassesFiniteValuesThrough) {
  Graph g;
  DefaultGraphScope scope(g);
  Tensor value = Tensor::Vector<float>({1, -2, 3});
  Tensor result = Eval(CheckNumerics(Constant(value), "loss"));
  EXPECT_TRUE(TensorEqual(result, value));
  EXPECT_TRUE(result.SharesBufferWith(value));
}

// A NaN or an infinity raises InvalidArgumentError naming the op, with the caller's message.
TEST(MathOpsTest, CheckNumericsRaisesOnNanAndInfNamingTheOp) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    Tensor value;
    const char* complaint;
  };
  const std::vector<Case> cases = {
      {Tensor::Vector<double>({1, nan}), "Tensor had NaN values"},
      {Tensor::Vector<double>({-inf, 1}), "Tensor had Inf values"},
      {Tensor::Vector<double>({inf, nan}), "Tensor had NaN values"},  // NaN is reported first.
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.complaint);
    Graph g;
    DefaultGraphScope scope(g);
    Output checked = CheckNumerics(Constant(c.value), "loss went bad", "check_loss");
    EXPECT_THROW(Eval(checked), InvalidArgumentError);
    EXPECT_THAT([&] { Eval(checked); },
                ThrowsMessage<InvalidArgumentError>(AllOf(
                    HasSubstr("loss went bad"), HasSubstr(c.complaint), HasSubstr("check_loss"))));
  }
}

}  // namespace
}  // namespace mts
