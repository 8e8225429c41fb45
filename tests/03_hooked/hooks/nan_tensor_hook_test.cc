// Tests of nan_tensor_hook.h: a NaN loss fails the run or stops training; finite losses and
// infinities pass.
#include "src/03_hooked/hooks/nan_tensor_hook.h"

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/platform/logging.h"
#include "tests/03_hooked/hooks/hook_test_harness.h"

namespace mts {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::StrEq;
using ::testing::ThrowsMessage;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// A program whose loss is whatever the caller feeds, run with the train op.
class NanTensorHookTest : public ::testing::Test {
 protected:
  NanTensorHookTest()
      : x_(Placeholder(DataType::kFloat, TensorShape::Unknown(), "x")),
        loss_(Identity(x_, "loss")) {}

  // One training step whose loss is `value`.
  void StepWithLoss(const Tensor& value) {
    harness_.hooked().Run({}, {{x_, value}}, {harness_.train_op()});
  }

  HookTestHarness harness_;
  Output x_;
  Output loss_;
  ScopedLogCapture capture_;
};

// Finite losses, and infinite ones (which are not NaN), neither log nor stop.
TEST_F(NanTensorHookTest, FiniteAndInfiniteLossesPass) {
  harness_.Start({std::make_shared<NanTensorHook>(loss_)});
  StepWithLoss(Tensor::Scalar(0.5f));
  StepWithLoss(Tensor::Scalar(kInf));
  EXPECT_FALSE(harness_.hooked().ShouldStop());
  EXPECT_THAT(capture_.lines(), IsEmpty());
}

// By default a NaN loss logs an error and throws; the step still ran, no stop is recorded.
TEST_F(NanTensorHookTest, NanLossFailsByDefault) {
  harness_.Start({std::make_shared<NanTensorHook>(loss_)});
  StepWithLoss(Tensor::Scalar(1.0f));
  EXPECT_THAT([&] { StepWithLoss(Tensor::Scalar(kNan)); },
              ThrowsMessage<NanLossDuringTrainingError>(StrEq("NaN loss during training.")));
  EXPECT_THAT(LoggedMessages(capture_), ElementsAre("Model diverged with loss = NaN."));
  EXPECT_EQ(capture_.lines()[0][0], 'E');
  EXPECT_EQ(harness_.GlobalStep(), 2);
  EXPECT_FALSE(harness_.hooked().ShouldStop());
}

// The error is a RuntimeError, so code catching TensorFlow's base class catches it too.
TEST_F(NanTensorHookTest, TheErrorIsARuntimeError) {
  harness_.Start({std::make_shared<NanTensorHook>(loss_)});
  EXPECT_THROW(StepWithLoss(Tensor::Scalar(kNan)), RuntimeError);
}

// With fail_on_nan_loss false, a NaN loss logs a warning and requests a clean stop.
TEST_F(NanTensorHookTest, NanLossStopsWhenNotFailing) {
  harness_.Start({std::make_shared<NanTensorHook>(loss_, /*fail_on_nan_loss=*/false)});
  StepWithLoss(Tensor::Scalar(1.0f));
  EXPECT_FALSE(harness_.hooked().ShouldStop());
  StepWithLoss(Tensor::Scalar(kNan));
  EXPECT_TRUE(harness_.hooked().ShouldStop());
  EXPECT_THAT(LoggedMessages(capture_), ElementsAre("Model diverged with loss = NaN."));
  EXPECT_EQ(capture_.lines()[0][0], 'W');
}

// A non-scalar loss fails if any element is NaN.
TEST_F(NanTensorHookTest, AnyNanElementCounts) {
  harness_.Start({std::make_shared<NanTensorHook>(loss_)});
  StepWithLoss(Tensor::Vector<float>({1.0f, 2.0f}));
  EXPECT_THROW(StepWithLoss(Tensor::Vector<float>({1.0f, kNan})), NanLossDuringTrainingError);
}

// A float64 loss is checked too.
TEST(NanTensorHookDoubleTest, ChecksFloat64Losses) {
  HookTestHarness harness;
  Output x = Placeholder(DataType::kDouble, TensorShape{}, "x");
  harness.Start({std::make_shared<NanTensorHook>(Identity(x), /*fail_on_nan_loss=*/false)});
  harness.hooked().Run({}, {{x, Tensor::Scalar(std::nan(""))}}, {harness.train_op()});
  EXPECT_TRUE(harness.hooked().ShouldStop());
}

}  // namespace
}  // namespace mts
