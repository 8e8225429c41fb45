// Tests of the TwoPassStep exercise, in a MonitoredSession over a chief creator whose raw
// runs can be preempted by the fault-injection harness.
#include "chapters/06_monitored/exercises/two_pass_step/two_pass_step.h"

#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/training_util.h"
#include "src/02_chief_worker/chief_session_creator.h"
#include "src/03_hooked/hooks/stop_at_step_hook.h"
#include "src/06_monitored/monitored_session_scope.h"
#include "src/platform/errors.h"
#include "tests/testing/fault_injection.h"

namespace mts {
namespace {

// A hook that writes down the batch each run it sees trained on.
class BatchRecordingHook : public SessionRunHook {
 public:
  explicit BatchRecordingHook(Output batch) : batch_(batch) {}
  SessionRunArgs BeforeRun(SessionRunContext& run_context) override {
    SessionRunArgs args;
    args.fetches = {batch_};
    return args;
  }
  void AfterRun(SessionRunContext& run_context, const SessionRunValues& values) override {
    seen.push_back(values.results[0].scalar<int64_t>());
  }
  std::vector<int64_t> seen;

 private:
  Output batch_;
};

// A hook that writes down the global step each run it sees started from.
class StepRecordingHook : public SessionRunHook {
 public:
  void Begin() override { read_ = *GetOrCreateGlobalStepRead(); }
  SessionRunArgs BeforeRun(SessionRunContext& run_context) override {
    SessionRunArgs args;
    args.fetches = {read_};
    return args;
  }
  void AfterRun(SessionRunContext& run_context, const SessionRunValues& values) override {
    seen.push_back(values.results[0].scalar<int64_t>());
  }
  std::vector<int64_t> seen;  // The step before each run the hook saw.

 private:
  Output read_;
};

class TwoPassStepTest : public ::testing::Test {
 protected:
  // A MonitoredSession with `hooks` (the counting hook first), whose raw runs fail as
  // run_faults_ says, after the run below happened.
  std::unique_ptr<MonitoredSession> Make(MonitoredSession::Hooks hooks = {}) {
    counting_ = std::make_shared<CountingSessionCreator>(std::make_shared<ChiefSessionCreator>());
    auto faulty = std::make_shared<FaultySessionCreator>(counting_, FaultSchedule::Never(),
                                                         run_faults_, FaultTiming::kAfterRun);
    hooks.insert(hooks.begin(), counter_);
    return std::make_unique<MonitoredSession>(faulty, hooks);
  }

  Graph graph_;
  DefaultGraphScope scope_{graph_};
  Variable global_step_ = GetOrCreateGlobalStep();
  // The input: each run that evaluates batch_ takes the next batch, numbered 1, 2, 3...
  Variable taken_{Tensor::Scalar<int64_t>(0), "batches_taken"};
  Output batch_ = taken_.AssignAdd(Constant(Tensor::Scalar<int64_t>(1)));
  // The sum of the batches trained on, one term per pass.
  Variable trained_{Tensor::Scalar<int64_t>(0), "batches_trained"};
  Operation* train_op_ = Group({trained_.AssignAdd(batch_).op(), IncrementGlobalStep().op()});
  std::shared_ptr<FaultSchedule> run_faults_ = FaultSchedule::Never();
  std::shared_ptr<CountingSessionCreator> counting_;
  // Counts every hook call; its schedule never fails.
  std::shared_ptr<FaultyHook> counter_ =
      std::make_shared<FaultyHook>(FaultyHook::Phase::kBeforeRun, FaultSchedule::Never());
};

// Each call is two optimizer passes: the global step advances by 2, and the call returns it.
TEST_F(TwoPassStepTest, AdvancesTheGlobalStepByTwo) {
  auto session = Make();
  EXPECT_EQ(TwoPassStep(*session, train_op_, batch_), 2);
  EXPECT_EQ(TwoPassStep(*session, train_op_, batch_), 4);
  EXPECT_EQ(TwoPassStep(*session, train_op_, batch_), 6);
  session->Close();
}

// The hooks see one step per call, the second pass: it starts from an odd step.
TEST_F(TwoPassStepTest, HooksSeeOnlyTheSecondPass) {
  auto recorder = std::make_shared<StepRecordingHook>();
  auto session = Make({recorder});
  for (int i = 0; i < 3; ++i) TwoPassStep(*session, train_op_, batch_);
  EXPECT_EQ(counter_->before_run_calls(), 3);
  EXPECT_EQ(counter_->after_run_calls(), 3);
  EXPECT_EQ(recorder->seen, (std::vector<int64_t>{1, 3, 5}));
  session->Close();
}

// One call takes one batch, and both passes train on it: three calls take batches 1, 2, 3
// and train on each twice.
TEST_F(TwoPassStepTest, BothPassesTrainOnOneBatch) {
  auto session = Make();
  for (int i = 0; i < 3; ++i) TwoPassStep(*session, train_op_, batch_);
  std::vector<Tensor> values = session->Run({taken_.value(), trained_.value()});
  EXPECT_EQ(values[0].scalar<int64_t>(), 3);
  EXPECT_EQ(values[1].scalar<int64_t>(), 2 * (1 + 2 + 3));
  session->Close();
}

// A hook that fetches the batch in the hooked pass gets the one the step trained on, and
// takes no batch of its own.
TEST_F(TwoPassStepTest, TheHooksSeeTheBatchTheStepTrainedOn) {
  auto recorder = std::make_shared<BatchRecordingHook>(batch_);
  auto session = Make({recorder});
  for (int i = 0; i < 3; ++i) TwoPassStep(*session, train_op_, batch_);
  EXPECT_EQ(recorder->seen, (std::vector<int64_t>{1, 2, 3}));
  session->Close();
}

// A preemption of the hooked pass re-runs the whole step function on the new session:
// without a checkpoint the model starts again, and the call still returns a whole step (2).
TEST_F(TwoPassStepTest, APreemptedStepIsRunAgainFromTheStart) {
  run_faults_ = FaultSchedule::AtCall(5, ErrorCode::kAborted);  // The 2nd call's hooked pass.
  auto session = Make();
  EXPECT_EQ(TwoPassStep(*session, train_op_, batch_), 2);  // Runs 1, 2, and the read (3).
  EXPECT_EQ(TwoPassStep(*session, train_op_, batch_), 2);  // Run 5 failed; the retry began at 0.
  EXPECT_EQ(counting_->created(), 2);
  EXPECT_EQ(counter_->before_run_calls(), 3);  // The failed attempt's hooked pass, too.
  EXPECT_EQ(counter_->after_run_calls(), 2);   // But only whole steps complete.
  EXPECT_EQ(TwoPassStep(*session, train_op_, batch_), 4);
  session->Close();
}

// A preemption of the raw pass recovers the same way: no hook saw the failed attempt.
TEST_F(TwoPassStepTest, APreemptedRawPassIsRunAgain) {
  run_faults_ = FaultSchedule::AtCall(1, ErrorCode::kUnavailable);
  auto session = Make();
  EXPECT_EQ(TwoPassStep(*session, train_op_, batch_), 2);
  EXPECT_EQ(counting_->created(), 2);
  EXPECT_EQ(counter_->before_run_calls(), 1);
  session->Close();
}

// StopAtStepHook ends the loop: it sees the step after the hooked pass, two per call.
TEST_F(TwoPassStepTest, AStopAtStepHookEndsTheLoop) {
  auto session = Make({StopAtStepHook::AtLastStep(10)});
  int calls = 0;
  int64_t step = 0;
  WithMonitoredSession(*session, [&](MonitoredSession& sess) {
    // Bounded, so that a TwoPassStep that never advances the step fails instead of hanging.
    while (!sess.ShouldStop() && calls < 100) {
      step = TwoPassStep(sess, train_op_, batch_);
      ++calls;
    }
  });
  EXPECT_EQ(calls, 5);
  EXPECT_EQ(step, 10);
}

}  // namespace
}  // namespace mts
