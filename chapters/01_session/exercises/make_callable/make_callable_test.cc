// Tests of the Callable exercise.
#include "chapters/01_session/exercises/make_callable/make_callable.h"

#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/learning/math_ops.h"

namespace mts {
namespace {

class CallableTest : public ::testing::Test {
 protected:
  Graph graph_;
  DefaultGraphScope scope_{graph_};
  Output x_ = Placeholder(DataType::kFloat, TensorShape{}, "x");
  Output y_ = Placeholder(DataType::kFloat, TensorShape{}, "y");
  Output sum_ = Add(x_, y_, "sum");
};

// Calling it runs the signature with the values fed in order.
TEST_F(CallableTest, RunsWithFeedValuesInOrder) {
  Session session(&graph_);
  Callable add(session, {x_, y_}, {sum_});
  std::vector<Tensor> out = add({Tensor::Scalar(2.0f), Tensor::Scalar(5.0f)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].scalar<float>(), 7.0f);
}

// Many calls plan the signature once.
TEST_F(CallableTest, ManyCallsPlanOnce) {
  Session session(&graph_);
  Callable add(session, {x_, y_}, {sum_});
  for (int i = 0; i < 100; ++i) {
    std::vector<Tensor> out = add({Tensor::Scalar(1.0f * i), Tensor::Scalar(1.0f)});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].scalar<float>(), i + 1.0f);
  }
  EXPECT_EQ(session.num_cached_plans(), 1);
}

// A tensor of another graph is rejected when the Callable is made, before any run.
TEST_F(CallableTest, TensorOfAnotherGraphIsRejectedWhenMade) {
  Graph other;
  Output foreign;
  {
    DefaultGraphScope scope(other);
    foreign = Constant(1.0f, "foreign");
  }
  Session session(&graph_);
  EXPECT_THROW(Callable(session, {x_}, {foreign}), ValueError);
  EXPECT_THROW(Callable(session, {foreign}, {sum_}), ValueError);
}

// A tensor fed twice is rejected when the Callable is made.
TEST_F(CallableTest, DuplicateFeedIsRejectedWhenMade) {
  Session session(&graph_);
  EXPECT_THROW(Callable(session, {x_, x_}, {sum_}), ValueError);
}

// The wrong number of values is an InvalidArgumentError at call time.
TEST_F(CallableTest, WrongNumberOfValuesIsInvalidArgument) {
  Session session(&graph_);
  Callable add(session, {x_, y_}, {sum_});
  EXPECT_THROW(add({Tensor::Scalar(1.0f)}), InvalidArgumentError);
}

}  // namespace
}  // namespace mts
