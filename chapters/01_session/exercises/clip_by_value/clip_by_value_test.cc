// Tests of the ClipByValue exercise: values, dtypes, and errors at build and run time.
#include "chapters/01_session/exercises/clip_by_value/clip_by_value.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/session.h"
#include "tests/testing/expect_error.h"

namespace mts {
namespace {

using ::testing::Throws;

class ClipByValueTest : public ::testing::Test {
 protected:
  Graph graph_;
  DefaultGraphScope scope_{graph_};
};

// Elements below the minimum rise to it, above the maximum fall to it, between stay.
TEST_F(ClipByValueTest, ClipsFloatsIntoTheRange) {
  Output t = Constant(Tensor::Matrix<float>({{-3, 0.5f}, {2, 9}}));
  Output c = ClipByValue(t, Constant(0.0f), Constant(1.0f));
  Session session;
  EXPECT_EQ(session.Run(c).ToVector<float>(), (std::vector<float>{0, 0.5f, 1, 1}));
  EXPECT_EQ(c.shape(), (TensorShape{2, 2}));
}

// Integers clip the same way.
TEST_F(ClipByValueTest, ClipsIntegers) {
  Output c = ClipByValue(Constant(Tensor::Vector<int64_t>({-5, 3, 50})), Constant(int64_t{0}),
                         Constant(int64_t{10}));
  Session session;
  EXPECT_EQ(session.Run(c).ToVector<int64_t>(), (std::vector<int64_t>{0, 3, 10}));
}

// A bound of another dtype is rejected while the graph is built.
TEST_F(ClipByValueTest, MixedDtypesAreATypeErrorAtBuildTime) {
  Output t = Constant(Tensor::Vector<float>({1}));
  EXPECT_THROW(ClipByValue(t, Constant(0.0), Constant(1.0f)), TypeError);
}

// A bound that is not a scalar is rejected while the graph is built.
TEST_F(ClipByValueTest, NonScalarBoundIsAValueErrorAtBuildTime) {
  Output t = Constant(Tensor::Vector<float>({1}));
  EXPECT_THROW(ClipByValue(t, Constant(Tensor::Vector<float>({0, 0})), Constant(1.0f)), ValueError);
}

// Bounds in the wrong order are only known at run time: InvalidArgumentError naming the op.
TEST_F(ClipByValueTest, ReversedBoundsFailAtRunTimeNamingTheOp) {
  Output lo = Placeholder(DataType::kFloat, TensorShape{}, "lo");
  Output c = ClipByValue(Constant(Tensor::Vector<float>({1})), lo, Constant(1.0f), "clip");
  Session session;
  EXPECT_THAT(
      [&] {
        session.Run(c, {{lo, Tensor::Scalar(2.0f)}});
      },
      Throws<InvalidArgumentError>(HasOpName("clip")));
}

// A bound of unknown rank passes the build; fed a non-scalar, even one of a single element,
// it fails at run time naming the op.
TEST_F(ClipByValueTest, BoundOfUnknownRankIsCheckedAtRunTime) {
  Output hi = Placeholder(DataType::kFloat, TensorShape::Unknown(), "hi");
  Output c = ClipByValue(Constant(Tensor::Vector<float>({1, 5})), Constant(0.0f), hi, "clip");
  Session session;
  EXPECT_EQ(session.Run(c, {{hi, Tensor::Scalar(2.0f)}}).ToVector<float>(),
            (std::vector<float>{1, 2}));
  for (const Tensor& bad : {Tensor::Vector<float>({2}), Tensor::Vector<float>({2, 3})}) {
    EXPECT_THAT(
        [&] {
          session.Run(c, {{hi, bad}});
        },
        Throws<InvalidArgumentError>(HasOpName("clip")));
  }
}

}  // namespace
}  // namespace mts
