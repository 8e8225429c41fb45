// early_stopping_hook_test.cc: decides whether the early_stopping_hook exercise of chapter 03
// is done.
//
// Each test feeds a scripted sequence of losses through a real HookedSession: the loss is a
// placeholder the caller feeds, and the hook fetches it like any tensor.
#include "chapters/03_hooked/exercises/early_stopping_hook/early_stopping_hook.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "src/01_session/array_ops.h"
#include "src/01_session/session.h"
#include "src/03_hooked/hooked_session.h"
#include "src/platform/errors.h"

namespace mts {
namespace {

// A loss placeholder and a HookedSession that calls one EarlyStoppingHook.
class EarlyStoppingTest : public ::testing::Test {
 protected:
  void Start(int64_t patience, double min_delta = 0.0, DataType dtype = DataType::kDouble) {
    dtype_ = dtype;
    loss_ = Placeholder(dtype, TensorShape{}, "loss");
    hook_ = std::make_shared<EarlyStoppingHook>(loss_, patience, min_delta);
    hook_->Begin();
    session_ = std::make_unique<HookedSession>(std::make_unique<Session>(&graph_),
                                               std::vector<std::shared_ptr<SessionRunHook>>{hook_});
  }

  // Runs with each loss in turn until the session should stop; returns the runs made.
  size_t RunLosses(const std::vector<double>& losses) {
    size_t runs = 0;
    for (double loss : losses) {
      if (session_->ShouldStop()) break;
      const Tensor value = dtype_ == DataType::kFloat ? Tensor::Scalar(static_cast<float>(loss))
                                                      : Tensor::Scalar(loss);
      session_->Run(std::vector<Output>{}, FeedDict{{loss_, value}});
      ++runs;
    }
    return runs;
  }

  Graph graph_;
  DefaultGraphScope as_default_{graph_};
  DataType dtype_ = DataType::kDouble;
  Output loss_;
  std::shared_ptr<EarlyStoppingHook> hook_;
  std::unique_ptr<HookedSession> session_;
};

// While the loss keeps falling, training goes on.
TEST_F(EarlyStoppingTest, AFallingLossNeverStops) {
  Start(/*patience=*/2);
  EXPECT_EQ(RunLosses({5, 4, 3, 2, 1, 0.5, 0.25}), 7u);
  EXPECT_FALSE(session_->ShouldStop());
  ASSERT_TRUE(hook_->best_loss().has_value()) << "AfterRun did not record the loss";
  EXPECT_EQ(*hook_->best_loss(), 0.25);
  EXPECT_EQ(hook_->steps_without_improvement(), 0);
}

// After `patience` runs in a row without improvement, the hook requests a stop, and the
// run that made the count reach patience is the last one.
TEST_F(EarlyStoppingTest, StopsAfterPatienceRunsWithoutImprovement) {
  Start(/*patience=*/3);
  //                 best  1    2    3: stop
  EXPECT_EQ(RunLosses({4, 3, 3.5, 3, 9, 1, 1}), 5u);
  EXPECT_TRUE(session_->ShouldStop());
  EXPECT_EQ(*hook_->best_loss(), 3);
  EXPECT_EQ(hook_->steps_without_improvement(), 3);
}

// An improvement resets the count: only runs *in a row* without one add up.
TEST_F(EarlyStoppingTest, AnImprovementResetsTheCount) {
  Start(/*patience=*/2);
  EXPECT_EQ(RunLosses({4, 4, 3, 3, 2, 2, 1}), 7u);
  EXPECT_FALSE(session_->ShouldStop());
  EXPECT_EQ(hook_->steps_without_improvement(), 0);
}

// An improvement must be larger than min_delta to count; a smaller one is a plateau.
TEST_F(EarlyStoppingTest, ImprovementsOfAtMostMinDeltaDoNotCount) {
  Start(/*patience=*/2, /*min_delta=*/0.1);
  // 0.95 and 0.9 are within 0.1 of the best, 1.0: the count reaches 2 at the third run.
  EXPECT_EQ(RunLosses({1.0, 0.95, 0.9, 0.5}), 3u);
  EXPECT_TRUE(session_->ShouldStop());
  EXPECT_EQ(*hook_->best_loss(), 1.0);
}

// A large enough improvement counts, and becomes the new best.
TEST_F(EarlyStoppingTest, ImprovementsLargerThanMinDeltaCount) {
  Start(/*patience=*/2, /*min_delta=*/0.1);
  EXPECT_EQ(RunLosses({1.0, 0.85, 0.7, 0.55}), 4u);
  EXPECT_FALSE(session_->ShouldStop());
  EXPECT_EQ(*hook_->best_loss(), 0.55);
}

// With patience 1, the first run without improvement stops training.
TEST_F(EarlyStoppingTest, PatienceOneStopsAtTheFirstPlateau) {
  Start(/*patience=*/1);
  EXPECT_EQ(RunLosses({2, 1, 1, 0}), 3u);
  EXPECT_TRUE(session_->ShouldStop());
}

// A NaN loss is never an improvement, so a diverged model runs out of patience.
TEST_F(EarlyStoppingTest, NanIsNeverAnImprovement) {
  Start(/*patience=*/2);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(RunLosses({1, nan, nan, 0}), 3u);
  EXPECT_TRUE(session_->ShouldStop());
  EXPECT_EQ(*hook_->best_loss(), 1);
}

// A NaN first loss does not become the best (nothing could ever beat it): it counts as a
// run without improvement, and the first real loss becomes the best.
TEST_F(EarlyStoppingTest, ANanFirstLossIsNotTheBest) {
  Start(/*patience=*/2);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(RunLosses({nan}), 1u);
  EXPECT_FALSE(hook_->best_loss().has_value());
  EXPECT_EQ(hook_->steps_without_improvement(), 1);
  EXPECT_EQ(RunLosses({5, 4, 4, 4, 3}), 4u);
  EXPECT_TRUE(session_->ShouldStop());
  EXPECT_EQ(*hook_->best_loss(), 4);
}

// A float32 loss works as well as a float64 one.
TEST_F(EarlyStoppingTest, WatchesAFloat32Loss) {
  Start(/*patience=*/2, /*min_delta=*/0.0, DataType::kFloat);
  EXPECT_EQ(RunLosses({0.5, 0.25, 0.25, 0.25, 0.1}), 4u);
  EXPECT_TRUE(session_->ShouldStop());
  EXPECT_EQ(*hook_->best_loss(), 0.25);
}

// Begin forgets what an earlier training taught the hook.
TEST_F(EarlyStoppingTest, BeginStartsAfresh) {
  Start(/*patience=*/2);
  EXPECT_EQ(RunLosses({1, 2, 2}), 3u);
  hook_->Begin();
  EXPECT_FALSE(hook_->best_loss().has_value());
  EXPECT_EQ(hook_->steps_without_improvement(), 0);
}

// Nonsense settings are refused when the hook is made.
TEST(EarlyStoppingHookTest, RefusesBadSettings) {
  Graph graph;
  DefaultGraphScope as_default(graph);
  Output loss = Placeholder(DataType::kDouble, TensorShape{}, "loss");
  EXPECT_THROW(EarlyStoppingHook(loss, 0), ValueError);
  EXPECT_THROW(EarlyStoppingHook(loss, 3, -0.5), ValueError);
}

}  // namespace
}  // namespace mts
