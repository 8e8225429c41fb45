// Tests of final_ops_hook.h: the final ops run in End with their feed, their values are
// kept, and an OutOfRangeError is explained and passed on.
#include "src/03_hooked/hooks/final_ops_hook.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/learning/math_ops.h"
#include "src/platform/errors.h"
#include "src/platform/logging.h"
#include "tests/03_hooked/hooks/hook_test_harness.h"

namespace mts {
namespace {

using ::testing::HasSubstr;

// Nothing runs before End; End runs the ops once and keeps their values, in order.
TEST(FinalOpsHookTest, EndRunsTheFinalOpsAndKeepsTheirValues) {
  HookTestHarness harness;
  Output doubled = Mul(harness.step().value(), Constant(int64_t{2}));
  auto hook = std::make_shared<FinalOpsHook>(std::vector<Output>{harness.step().value(), doubled});
  harness.Start({hook});
  harness.Step();
  harness.Step();
  harness.Step();
  EXPECT_FALSE(hook->final_ops_values().has_value());
  harness.End();
  ASSERT_TRUE(hook->final_ops_values().has_value());
  const std::vector<Tensor>& values = *hook->final_ops_values();
  ASSERT_EQ(values.size(), 2u);
  EXPECT_EQ(values[0].scalar<int64_t>(), 3);
  EXPECT_EQ(values[1].scalar<int64_t>(), 6);
}

// The final ops run with final_ops_feed_dict.
TEST(FinalOpsHookTest, FeedsTheFinalOpsFeedDict) {
  HookTestHarness harness;
  Output x = Placeholder(DataType::kFloat, TensorShape{}, "x");
  Output y = Add(x, Constant(1.0f));
  auto hook =
      std::make_shared<FinalOpsHook>(std::vector<Output>{y}, FeedDict{{x, Tensor::Scalar(41.0f)}});
  harness.Start({hook});
  harness.End();
  EXPECT_EQ((*hook->final_ops_values())[0].scalar<float>(), 42.0f);
}

// A session whose every run reports exhausted input.
class ExhaustedSession : public SessionInterface {
 public:
  using SessionInterface::Run;
  std::vector<Tensor> Run(const std::vector<Output>&, const FeedDict&,
                          const std::vector<Operation*>&, const RunOptions&,
                          RunMetadata*) override {
    throw OutOfRangeError("End of sequence");
  }
  Graph* graph() const override { return nullptr; }
  void Close() override {}
};

// OutOfRangeError from a final op is logged as a warning and re-raised; no values are kept.
TEST(FinalOpsHookTest, OutOfRangeIsExplainedAndRaised) {
  Graph g;
  DefaultGraphScope as_default(g);
  FinalOpsHook hook({Constant(1.0f)});
  ExhaustedSession session;
  ScopedLogCapture capture;
  EXPECT_THROW(hook.End(session), OutOfRangeError);
  EXPECT_FALSE(hook.final_ops_values().has_value());
  ASSERT_EQ(capture.lines().size(), 1u);
  EXPECT_EQ(capture.lines()[0][0], 'W');
  EXPECT_THAT(capture.lines()[0],
              HasSubstr("An OutOfRangeError or StopIteration exception is raised by the code in "
                        "FinalOpsHook. This typically means the Ops running by the FinalOpsHook "
                        "have a dependency back to some input source"));
}

}  // namespace
}  // namespace mts
