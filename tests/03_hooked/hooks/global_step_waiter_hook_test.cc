// Tests of global_step_waiter_hook.h: the first run waits, polling the step every 0.5 s of a
// FakeClock, while "other workers" advance it; later runs and non-positive targets pass.
#include "src/03_hooked/hooks/global_step_waiter_hook.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/platform/errors.h"
#include "src/platform/logging.h"
#include "tests/03_hooked/hooks/hook_test_harness.h"
#include "tests/testing/fake_clock.h"

namespace mts {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::StrEq;
using ::testing::ThrowsMessage;

// The other workers of a cluster, squeezed into a session wrapper: before each run made
// through it, they add `bump` to the global step. It also counts the runs.
class OtherWorkersSession : public SessionInterface {
 public:
  OtherWorkersSession(std::unique_ptr<SessionInterface> inner, Operation* bump, int* runs)
      : inner_(std::move(inner)), bump_(bump), runs_(runs) {}
  using SessionInterface::Run;
  std::vector<Tensor> Run(const std::vector<Output>& fetches, const FeedDict& feeds,
                          const std::vector<Operation*>& targets, const RunOptions& options,
                          RunMetadata* run_metadata) override {
    ++*runs_;
    inner_->Run(bump_);
    return inner_->Run(fetches, feeds, targets, options, run_metadata);
  }
  Graph* graph() const override { return inner_->graph(); }
  void Close() override { inner_->Close(); }

 private:
  std::unique_ptr<SessionInterface> inner_;
  Operation* bump_;
  int* runs_;
};

class GlobalStepWaiterHookTest : public ::testing::Test {
 protected:
  // Starts `hook` in a cluster whose other workers add `bump` steps per run.
  void Start(std::shared_ptr<SessionRunHook> hook, int64_t bump) {
    Operation* bump_op = harness_.step().AssignAdd(Constant(bump)).op();
    harness_.Start({std::move(hook)}, 0, [&](std::unique_ptr<SessionInterface> raw) {
      return std::make_unique<OtherWorkersSession>(std::move(raw), bump_op, &runs_);
    });
  }

  HookTestHarness harness_;
  FakeClock clock_{FakeClock::Mode::kAutoAdvance};
  int runs_ = 0;
  ScopedLogCapture capture_;
};

// The first run polls until the step reaches the target, sleeping 0.5 s between reads, and
// logs at the start and when the step has moved more than 1000 since the last line.
TEST_F(GlobalStepWaiterHookTest, FirstRunWaitsForTheStep) {
  Start(std::make_shared<GlobalStepWaiterHook>(2000, &clock_), /*bump=*/600);
  harness_.Step();  // Reads 600, 1200, 1800, 2400; three sleeps between them.
  EXPECT_EQ(runs_, 5);  // Four reads, then the run itself.
  EXPECT_EQ(clock_.NowMicros(), 1500000);
  EXPECT_THAT(LoggedMessages(capture_),
              ElementsAre("Waiting for global step 2000 before starting training.",
                          "Waiting for global step 2000 before starting training. Current "
                          "step is 1200."));
}

// Once started, the hook does nothing: no reads, no sleeps, no logs.
TEST_F(GlobalStepWaiterHookTest, LaterRunsPassStraightThrough) {
  Start(std::make_shared<GlobalStepWaiterHook>(100, &clock_), /*bump=*/100);
  harness_.Step();
  const int runs_after_first = runs_;
  const size_t lines_after_first = capture_.lines().size();
  harness_.Step();
  harness_.Step();
  EXPECT_EQ(runs_, runs_after_first + 2);
  EXPECT_EQ(capture_.lines().size(), lines_after_first);
}

// A step already reached costs one read and no sleep (the start line is still logged).
TEST_F(GlobalStepWaiterHookTest, StepAlreadyReachedDoesNotSleep) {
  Start(std::make_shared<GlobalStepWaiterHook>(50, &clock_), /*bump=*/100);
  harness_.Step();
  EXPECT_EQ(runs_, 2);
  EXPECT_EQ(clock_.NowMicros(), 0);
  EXPECT_THAT(LoggedMessages(capture_),
              ElementsAre("Waiting for global step 50 before starting training."));
}

// A target of zero or less means start at once, without reading the step.
TEST_F(GlobalStepWaiterHookTest, NonPositiveTargetStartsAtOnce) {
  Start(std::make_shared<GlobalStepWaiterHook>(0, &clock_), /*bump=*/1);
  harness_.Step();
  EXPECT_EQ(runs_, 1);
  EXPECT_THAT(capture_.lines(), IsEmpty());
}

// Without a global step, Begin refuses with TensorFlow's text.
TEST(GlobalStepWaiterHookBeginTest, NeedsAGlobalStep) {
  Graph g;
  DefaultGraphScope as_default(g);
  GlobalStepWaiterHook hook(10);
  EXPECT_THAT([&] { hook.Begin(); },
              ThrowsMessage<RuntimeError>(
                  StrEq("Global step should be created to use _GlobalStepWaiterHook.")));
}

}  // namespace
}  // namespace mts
