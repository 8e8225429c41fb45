// Tests of the reductions and ArgMax (math_ops.h, reduction_ops.cc): values over all elements
// and along an axis, keep_dims, static shapes, empty inputs, and the axis and dtype errors.
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/session.h"
#include "tests/01_session/learning/op_test_util.h"

namespace mts {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

using testing_util::Eval;
using testing_util::kUnknown;

using ReduceFn = Output (*)(const Output&, std::optional<int>, bool, const std::string&);

// Sum, Mean and Max over all elements, along each axis (negative too), with and without
// keep_dims, on x = [[1,2,3],[4,5,6]].
TEST(ReductionOpsTest, ReductionsMatchHandComputedValues) {
  struct Case {
    const char* label;
    ReduceFn op;
    std::optional<int> axis;
    bool keep_dims;
    Tensor expected;
  };
  const std::vector<Case> cases = {
      {"sum all", ReduceSum, std::nullopt, false, Tensor::Scalar(21.0f)},
      {"sum all keep", ReduceSum, std::nullopt, true, Tensor::Matrix<float>({{21}})},
      {"sum axis 0", ReduceSum, 0, false, Tensor::Vector<float>({5, 7, 9})},
      {"sum axis 1", ReduceSum, 1, false, Tensor::Vector<float>({6, 15})},
      {"sum axis -1", ReduceSum, -1, false, Tensor::Vector<float>({6, 15})},
      {"sum axis 1 keep", ReduceSum, 1, true, Tensor::Matrix<float>({{6}, {15}})},
      {"sum axis -2 keep", ReduceSum, -2, true, Tensor::Matrix<float>({{5, 7, 9}})},
      {"mean all", ReduceMean, std::nullopt, false, Tensor::Scalar(3.5f)},
      {"mean axis 0", ReduceMean, 0, false, Tensor::Vector<float>({2.5f, 3.5f, 4.5f})},
      {"mean axis 1 keep", ReduceMean, 1, true, Tensor::Matrix<float>({{2}, {5}})},
      {"max all", ReduceMax, std::nullopt, false, Tensor::Scalar(6.0f)},
      {"max axis 0", ReduceMax, 0, false, Tensor::Vector<float>({4, 5, 6})},
      {"max axis -1", ReduceMax, -1, false, Tensor::Vector<float>({3, 6})},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.label);
    Graph g;
    DefaultGraphScope scope(g);
    Output x = Constant(Tensor::Matrix<float>({{1, 2, 3}, {4, 5, 6}}));
    Output y = c.op(x, c.axis, c.keep_dims, "reduce");
    EXPECT_EQ(y.shape(), c.expected.shape());
    Tensor result = Eval(y);
    EXPECT_TRUE(TensorAllClose(result, c.expected)) << result;
  }
}

// Reducing a middle axis keeps the axes on both sides: [2,2,2] summed along axis 1.
TEST(ReductionOpsTest, ReducesAMiddleAxis) {
  Graph g;
  DefaultGraphScope scope(g);
  Output x = Constant(Tensor::FromValues<int64_t>({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_TRUE(TensorEqual(Eval(ReduceSum(x, 1)), Tensor::Matrix<int64_t>({{2, 4}, {10, 12}})));
  EXPECT_TRUE(TensorEqual(Eval(ReduceMax(x, 2)), Tensor::Matrix<int64_t>({{1, 3}, {5, 7}})));
}

// An integer mean is truncated, as integer division is.
TEST(ReductionOpsTest, IntegerMeanRoundsTowardZero) {
  Graph g;
  DefaultGraphScope scope(g);
  EXPECT_EQ(Eval(ReduceMean(Constant(Tensor::Vector<int32_t>({1, 2})))).scalar<int32_t>(), 1);
  EXPECT_EQ(Eval(ReduceMean(Constant(Tensor::Vector<int32_t>({-1, -2})))).scalar<int32_t>(), -1);
}

// Reducing nothing gives the identity of each reduction: 0, NaN for a float mean, -inf.
TEST(ReductionOpsTest, EmptyReductionsGiveTheirIdentity) {
  Graph g;
  DefaultGraphScope scope(g);
  Output empty = Constant(Tensor::Zeros(DataType::kFloat, {0}));
  EXPECT_EQ(Eval(ReduceSum(empty)).scalar<float>(), 0.0f);
  EXPECT_TRUE(std::isnan(Eval(ReduceMean(empty)).scalar<float>()));
  EXPECT_EQ(Eval(ReduceMax(empty)).scalar<float>(), -std::numeric_limits<float>::infinity());
  Output empty_ints = Constant(Tensor::Zeros(DataType::kInt32, {2, 0}));
  EXPECT_TRUE(TensorEqual(Eval(ReduceMean(empty_ints, 1)), Tensor::Vector<int32_t>({0, 0})));
  EXPECT_TRUE(TensorEqual(Eval(ReduceMax(empty_ints, 1)),
                          Tensor::Vector<int32_t>({std::numeric_limits<int32_t>::lowest(),
                                                   std::numeric_limits<int32_t>::lowest()})));
}

// Static shapes keep what is known, and give up only where the rank is unknown.
TEST(ReductionOpsTest, StaticShapesKeepWhatIsKnown) {
  Graph g;
  DefaultGraphScope scope(g);
  Output x = Placeholder(DataType::kFloat, {kUnknown, 3});
  EXPECT_EQ(ReduceSum(x).shape(), TensorShape({}));
  EXPECT_EQ(ReduceSum(x, 1, true).shape(), TensorShape({kUnknown, 1}));
  EXPECT_EQ(ReduceMean(x, 0).shape(), TensorShape({3}));
  EXPECT_EQ(ArgMax(x, 1).shape(), TensorShape({kUnknown}));
  Output unknown = Placeholder(DataType::kFloat);
  EXPECT_EQ(ReduceMax(unknown).shape(), TensorShape({}));
  EXPECT_EQ(ReduceMax(unknown, 0).shape(), TensorShape::Unknown());
  // Fed a value, it reduces the axis the value has.
  EXPECT_TRUE(TensorEqual(Eval(ReduceMax(unknown, -1), {{unknown, Tensor::Matrix<float>(
                                                                          {{1, 9}, {8, 2}})}}),
                          Tensor::Vector<float>({9, 8})));
}

// An axis out of range for a known rank is a ValueError naming the op; for a value whose
// rank was unknown at build time, an InvalidArgumentError when it runs.
TEST(ReductionOpsTest, AxisOutOfRangeIsAnErrorNamingTheOp) {
  Graph g;
  DefaultGraphScope scope(g);
  Output x = Constant(Tensor::Matrix<float>({{1, 2}}));
  for (int axis : {2, -3}) {
    SCOPED_TRACE(axis);
    EXPECT_THROW(ReduceSum(x, axis, false, "total"), ValueError);
    EXPECT_THAT([&] { ReduceMean(x, axis, false, "total"); },
                ThrowsMessage<ValueError>(AllOf(HasSubstr("Invalid axis"), HasSubstr("'total'"))));
    EXPECT_THAT([&] { ArgMax(x, axis, "best"); }, ThrowsMessage<ValueError>(HasSubstr("'best'")));
  }
  Output unknown = Placeholder(DataType::kFloat);
  Output y = ReduceSum(unknown, 3, false, "total");
  EXPECT_THAT(
      [&] {
        Eval(y, {{unknown, Tensor::Scalar(1.f)}});
      },
      ThrowsMessage<InvalidArgumentError>(HasSubstr("total")));
}

// ArgMax gives the int64 index of the largest element along an axis; ties go to the first.
TEST(ReductionOpsTest, ArgMaxFindsTheFirstLargestAlongAnAxis) {
  struct Case {
    int axis;
    Tensor expected;
  };
  const std::vector<Case> cases = {
      {1, Tensor::Vector<int64_t>({1, 0})},
      {-1, Tensor::Vector<int64_t>({1, 0})},
      {0, Tensor::Vector<int64_t>({1, 0, 1})},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.axis);
    Graph g;
    DefaultGraphScope scope(g);
    Output x = Constant(Tensor::Matrix<int32_t>({{1, 5, 3}, {7, 2, 7}}));
    Output best = ArgMax(x, c.axis);
    EXPECT_EQ(best.dtype(), DataType::kInt64);
    EXPECT_TRUE(TensorEqual(Eval(best), c.expected)) << Eval(best);
  }
}

// ArgMax along an empty axis has no answer: InvalidArgumentError naming the op.
TEST(ReductionOpsTest, ArgMaxOfAnEmptyAxisIsInvalidArgument) {
  Graph g;
  DefaultGraphScope scope(g);
  Output best = ArgMax(Constant(Tensor::Zeros(DataType::kFloat, {2, 0})), 1, "best");
  EXPECT_THAT([&] { Eval(best); }, ThrowsMessage<InvalidArgumentError>(HasSubstr("best")));
}

}  // namespace
}  // namespace mts
