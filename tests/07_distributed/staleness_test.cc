// What stale gradients do to the spirals model's loss, in one Session so that every number
// repeats (stale_training.h explains the simulation and why it matters).
#include <algorithm>
#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "tests/07_distributed/stale_training.h"

namespace mts {
namespace testing {
namespace {

// The highest loss after updates `from` to `to` - 1 (the last one's result excluded).
float HighestAfter(const std::vector<float>& losses, int from, int to) {
  return *std::max_element(losses.begin() + from + 1, losses.begin() + to);
}

// The control: one worker, fresh gradients, the example's learning rate. 400 steps take the
// loss from ln 3 = 1.10 to about 0.002, and steps 300 to 400 only ever lower it.
TEST(StalenessTest, OneWorkerTrainsSmoothlyAtTheExamplesRate) {
  const std::vector<float> alone = TrainWithStaleGradients(
      /*learning_rate=*/0.02, /*alone_updates=*/300, /*total_updates=*/400, /*delay=*/0);
  EXPECT_LT(alone[300], 0.01);
  EXPECT_LE(HighestAfter(alone, 300, 400), alone[300]);
  EXPECT_LT(alone[400], alone[300]);
}

// [mts:stale-join]
// The same 300 steps alone, then the same 100 steps with gradients two updates late, as
// when two workers join the chief at step 300: within a few dozen updates the model is
// worse than a guess (loss above ln 3), and by step 400 it has not recovered.
TEST(StalenessTest, WorkersJoiningAModelTrainedAloneThrowItOff) {
  const std::vector<float> late = TrainWithStaleGradients(
      /*learning_rate=*/0.02, /*alone_updates=*/300, /*total_updates=*/400, /*delay=*/2);
  EXPECT_LT(late[300], 0.01);
  EXPECT_GT(HighestAfter(late, 300, 400), std::log(3.0));
  EXPECT_GT(late[400], 0.1);  // multi_process_test's bound.
}
// [mts:stale-join-end]

// Nothing is lost for good: with 500 updates after the join the model trains back down.
TEST(StalenessTest, GivenTimeTheModelRecoversFromTheJoin) {
  const std::vector<float> late = TrainWithStaleGradients(
      /*learning_rate=*/0.02, /*alone_updates=*/300, /*total_updates=*/800, /*delay=*/2);
  EXPECT_GT(HighestAfter(late, 300, 800), std::log(3.0));
  EXPECT_LT(late[800], 0.05);
}

}  // namespace
}  // namespace testing
}  // namespace mts
