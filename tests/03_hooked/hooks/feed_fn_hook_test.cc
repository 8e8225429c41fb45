// Tests of feed_fn_hook.h: the function is called once per run and its feeds reach the run,
// merged with the caller's by HookedSession.
#include "src/03_hooked/hooks/feed_fn_hook.h"

#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/variables.h"
#include "src/platform/errors.h"
#include "tests/03_hooked/hooks/hook_test_harness.h"

namespace mts {
namespace {

class FeedFnHookTest : public ::testing::Test {
 protected:
  FeedFnHookTest()
      : x_(Placeholder(DataType::kFloat, TensorShape{}, "x")),
        y_(Placeholder(DataType::kFloat, TensorShape{}, "y")),
        x_plus_y_(Add(x_, y_)),
        total_(Tensor::Scalar(0.0f), "total"),
        add_x_(total_.AssignAdd(x_).op()) {}

  // A hook feeding x = 1, 2, 3, ... on successive runs.
  std::shared_ptr<FeedFnHook> CountingFeeder() {
    return std::make_shared<FeedFnHook>([this] {
      ++calls_;
      return FeedDict{{x_, Tensor::Scalar(static_cast<float>(calls_))}};
    });
  }

  HookTestHarness harness_;
  Output x_, y_, x_plus_y_;
  Variable total_;
  Operation* add_x_;
  int calls_ = 0;
};

// Each run calls feed_fn once, and the value it returns is what the run sees.
TEST_F(FeedFnHookTest, FeedsReachTheRun) {
  harness_.Start({CountingFeeder()});
  for (int i = 0; i < 3; ++i) harness_.hooked().Run({}, {}, {add_x_, harness_.train_op()});
  EXPECT_EQ(calls_, 3);
  EXPECT_EQ(harness_.raw().Run(total_.value()).scalar<float>(), 1.0f + 2.0f + 3.0f);
}

// The hook's feeds join the caller's; the caller's fetches see both.
TEST_F(FeedFnHookTest, HookAndCallerFeedsAreMerged) {
  harness_.Start({CountingFeeder()});
  Tensor sum = harness_.hooked().Run(x_plus_y_, {{y_, Tensor::Scalar(10.0f)}});
  EXPECT_EQ(sum.scalar<float>(), 11.0f);
}

// Feeding a tensor the caller also feeds is refused before the run.
TEST_F(FeedFnHookTest, FeedingWhatTheCallerFeedsIsAConflict) {
  harness_.Start({CountingFeeder()});
  EXPECT_THROW(harness_.hooked().Run({}, {{x_, Tensor::Scalar(5.0f)}}, {add_x_}), RuntimeError);
  EXPECT_EQ(harness_.raw().Run(total_.value()).scalar<float>(), 0.0f);
}

}  // namespace
}  // namespace mts
