// ConditionalAccumulator in one session: the mean of N gradients, stale ones dropped, the
// global step advanced by each take, a take that waits until enough gradients arrive.
#include "src/07_distributed/sync_replicas/conditional_accumulator.h"

#include <future>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/session.h"
#include "src/07_distributed/sync_replicas/shared_resource.h"
#include "tests/testing/expect_error.h"

namespace mts {
namespace {

using ::testing::HasSubstr;

// Each test builds in a graph of its own, made before the fixture's ops.
struct FreshGraph {
  FreshGraph() { ResetDefaultGraph(); }
};

class ConditionalAccumulatorTest : public ::testing::Test, private FreshGraph {
 protected:
  // Applies `grad` at `local_step` through a fed op, as a worker's step does.
  void Apply(Session& session, float grad, int64_t local_step) {
    session.Run({}, {{grad_, Tensor::Scalar(grad)}, {step_, Tensor::Scalar(local_step)}}, {apply_});
  }

  ConditionalAccumulator accum_{DataType::kFloat, TensorShape{}, "w/grad_accum", "accum"};
  Output grad_ = Placeholder(DataType::kFloat, TensorShape{}, "grad");
  Output step_ = Placeholder(DataType::kInt64, TensorShape{}, "local_step");
  Operation* apply_ = accum_.ApplyGrad(grad_, step_);
};

// Two gradients at the current step: the take returns their mean.
TEST_F(ConditionalAccumulatorTest, TakeReturnsTheMeanOfTheRequiredGradients) {
  Output take = accum_.TakeGrad(2);
  Session session;
  Apply(session, 1.0f, 0);
  Apply(session, 3.0f, 0);
  EXPECT_EQ(session.Run(accum_.NumAccumulated()).scalar<int32_t>(), 2);
  EXPECT_FLOAT_EQ(session.Run(take).scalar<float>(), 2.0f);
  EXPECT_EQ(session.Run(accum_.NumAccumulated()).scalar<int32_t>(), 0);
}

// A take advances the accumulator's step: a gradient computed at the old step is dropped.
TEST_F(ConditionalAccumulatorTest, GradientsBehindTheGlobalStepAreDropped) {
  Output take = accum_.TakeGrad(1);
  Session session;
  Apply(session, 1.0f, 0);
  session.Run(take);
  Apply(session, 5.0f, 0);  // Stale: the accumulator is at step 1 now.
  EXPECT_EQ(session.Run(accum_.NumAccumulated()).scalar<int32_t>(), 0);
  Apply(session, 7.0f, 1);
  EXPECT_FLOAT_EQ(session.Run(take).scalar<float>(), 7.0f);
  auto* resource =
      static_cast<ConditionalAccumulatorResource*>(session.resources().Find(*accum_.op()));
  EXPECT_EQ(resource->num_dropped(), 1);
  EXPECT_EQ(resource->global_step(), 2);
}

// SetGlobalStep moves the step, so a chief can make older gradients stale.
TEST_F(ConditionalAccumulatorTest, SetGlobalStepMakesOlderGradientsStale) {
  Session session;
  session.Run({}, {}, {accum_.SetGlobalStep(Constant(int64_t{5}))});
  Apply(session, 1.0f, 4);
  EXPECT_EQ(session.Run(accum_.NumAccumulated()).scalar<int32_t>(), 0);
  Apply(session, 1.0f, 5);
  EXPECT_EQ(session.Run(accum_.NumAccumulated()).scalar<int32_t>(), 1);
}

// A take waits for the gradients it needs, then returns.
TEST_F(ConditionalAccumulatorTest, TakeWaitsUntilEnoughGradientsArrive) {
  Output take = accum_.TakeGrad(2);
  Session session;
  Apply(session, 2.0f, 0);
  auto taken = std::async(std::launch::async, [&] { return session.Run(take).scalar<float>(); });
  Apply(session, 4.0f, 0);
  EXPECT_FLOAT_EQ(taken.get(), 3.0f);
}

// Closing the session ends a take that waits, with CancelledError.
TEST_F(ConditionalAccumulatorTest, ClosingTheSessionCancelsAWaitingTake) {
  Output take = accum_.TakeGrad(2);
  Session session;
  auto taken = std::async(std::launch::async, [&] { session.Run(take); });
  session.Run({}, {}, {CancelWaits(accum_.op())});
  EXPECT_THAT([&] { taken.get(); }, ::testing::Throws<CancelledError>(
                                        HasMessage(HasSubstr("2 gradients in w/grad_accum"))));
}

// A gradient of the wrong shape is refused, naming the accumulator.
TEST_F(ConditionalAccumulatorTest, AGradientOfTheWrongShapeIsRefused) {
  Output vector_grad = Placeholder(DataType::kFloat, TensorShape::Unknown(), "vector_grad");
  Operation* apply = accum_.ApplyGrad(vector_grad, Constant(int64_t{0}));
  Session session;
  EXPECT_THAT(
      [&] {
        session.Run({}, {{vector_grad, Tensor::Vector<float>({1, 2})}}, {apply});
      },
      ::testing::Throws<InvalidArgumentError>(
          HasMessage(HasSubstr("Shape mismatch: ConditionalAccumulator w/grad_accum"))));
}

// TensorFlow's message for a take of no gradients.
TEST_F(ConditionalAccumulatorTest, TakeOfNoGradientsIsRefused) {
  Output take = accum_.TakeGrad(0);
  Session session;
  EXPECT_THAT([&] { session.Run(take); },
              ::testing::Throws<InvalidArgumentError>(
                  HasMessage(HasSubstr("Argument num_required must be positive, but was 0"))));
}

}  // namespace
}  // namespace mts
