// Pitfalls of stage 06 that TF1 users reported, each reproduced as the book's appendix
// (chapters/appendix_pitfalls) tells it: what a user did with a MonitoredSession, and what
// mts answers. The appendix cites each case by name; //docs:pitfalls_test checks that every
// name exists.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/learning/summary_ops.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/02_chief_worker/saver.h"
#include "src/03_hooked/events/summary_writer_cache.h"
#include "src/03_hooked/hooks/checkpoint_saver_hook.h"
#include "src/03_hooked/hooks/nan_tensor_hook.h"
#include "src/04_coordinated/queue/fifo_queue.h"
#include "src/04_coordinated/queue_runner.h"
#include "src/06_monitored/monitored_session_scope.h"
#include "src/06_monitored/monitored_training_session.h"
#include "src/06_monitored/step_context.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "src/platform/logging.h"
#include "tests/testing/expect_error.h"
#include "tests/testing/new_dir.h"
#include "tests/testing/recording_hook.h"

namespace mts {
namespace {

using ::testing::AllOf;
using ::testing::Ge;
using ::testing::HasSubstr;
using ::testing::SizeIs;
using ::testing::StartsWith;
using ::testing::Throws;
using ::testing::ThrowsMessage;

// A training program: a global step its train op increments, and a MonitoredTrainingSession
// made without signal handling (the tests list only TensorFlow's hooks).
class PitfallsTest : public ::testing::Test {
 protected:
  PitfallsTest() { options_.stop_on_signals = false; }
  ~PitfallsTest() override { SummaryWriterCache::Clear(); }

  Graph graph_;
  DefaultGraphScope scope_{graph_};
  Variable global_step_ = GetOrCreateGlobalStep();
  Output train_ = IncrementGlobalStep();
  MonitoredTrainingSessionOptions options_;
};

// #8425: Saver::Save given the MonitoredSession itself. TensorFlow raises TypeError "'sess'
// must be a Session"; so does mts (a C++ compiler cannot tell, since a MonitoredSession is a
// SessionInterface), naming the two ways that work. The second is shown working.
TEST_F(PitfallsTest, SavingThroughAMonitoredSessionIsRefused) {
  Saver saver;
  const std::string dir = NewDir("save");
  auto session = MonitoredTrainingSession(options_);
  session->Run(train_);
  EXPECT_THAT([&] { saver.Save(*session, JoinPath(dir, "model.ckpt"), 1); },
              ThrowsMessage<TypeError>(AllOf(StartsWith("'sess' must be a Session"),
                                             HasSubstr("CheckpointSaverHook"),
                                             HasSubstr("step_context.session()"))));
  session->RunStepFn(
      [&](StepContext& context) { saver.Save(context.session(), JoinPath(dir, "model.ckpt"), 1); });
  EXPECT_EQ(LatestCheckpoint(dir), JoinPath(dir, "model.ckpt-1"));
  session->Close();
}

// #11971, #17952: a run that must not fire the hooks (loading new values into variables).
// TensorFlow's answer is run_step_fn: its step_context.session is the raw session, below
// the hooks; mts's StepContext::session() is the same.
TEST_F(PitfallsTest, TheStepContextsSessionRunsWithoutTheHooks) {
  Operation* load = global_step_.Assign(Constant(int64_t{100})).op();
  auto hook = std::make_shared<RecordingHook>("watcher");
  options_.hooks = {hook};
  auto session = MonitoredTrainingSession(options_);
  session->RunStepFn([&](StepContext& context) { context.session().Run(load); });
  EXPECT_EQ(hook->Count("BeforeRun"), 0);
  session->RunStepFn([&](StepContext& context) { context.RunWithHooks({}, {}, {load}); });
  EXPECT_EQ(hook->Count("BeforeRun"), 1);
  session->Close();
}

// #15158, #15847: any run through the hooks runs their fetches too. Here a NanTensorHook's
// loss is computed from the input queue, so re-running an input initializer (a no-op here)
// through the session takes a batch; on the step context's raw session it does not.
TEST_F(PitfallsTest, EveryRunThroughTheHooksRunsTheirFetches) {
  Queue input = FIFOQueue(10, {DataType::kFloat}, {TensorShape{}}, "input");
  Operation* fill = input.EnqueueMany({Constant(Tensor::Vector<float>({1, 2, 3, 4}))});
  const Output loss = input.Dequeue()[0];
  const Output size = input.Size();
  Operation* reinitialize_input = NoOp("reinitialize_input");
  options_.hooks = {std::make_shared<NanTensorHook>(loss)};
  auto session = MonitoredTrainingSession(options_);
  auto batches_left = [&] {
    return session->RunStepFn(
        [&](StepContext& context) { return context.session().Run(size).scalar<int32_t>(); });
  };
  session->RunStepFn([&](StepContext& context) { context.session().Run(fill); });
  session->Run({}, {}, {reinitialize_input});
  EXPECT_EQ(batches_left(), 3);  // The hook's fetch took one.
  session->RunStepFn([&](StepContext& context) { context.session().Run(reinitialize_input); });
  EXPECT_EQ(batches_left(), 3);  // None taken.
  session->Close();
}

// #13516: a summary computed from a placeholder, with MonitoredTrainingSession's default
// summaries (every 100 steps, the first run included). A run that does not feed it fails
// in the SummarySaverHook's fetch; mts's warning names the hook's fetch before the error.
TEST_F(PitfallsTest, ASummaryNeedingAFeedFailsTheRunsWithoutIt) {
  const Output accuracy = Placeholder(DataType::kFloat, TensorShape{}, "accuracy");
  ScalarSummary("accuracy", accuracy);
  options_.checkpoint_dir = NewDir("summaries");
  auto session = MonitoredTrainingSession(options_);
  ScopedLogCapture log;
  EXPECT_THAT([&] { session->Run(train_); },
              Throws<InvalidArgumentError>(HasMessage(
                  HasSubstr("You must feed a value for placeholder tensor 'accuracy'"))));
  EXPECT_TRUE(log.Contains("Besides the caller's fetches it ran the hooks'"));
  EXPECT_TRUE(log.Contains("StepContext::session()"));
  // Fed, the same run works.
  session->Run({train_}, {{accuracy, Tensor::Scalar(0.5f)}});
  session->Close();
}

// tensorboard#654, #8801: an op built once the session exists. The graph is finalized when
// the session is created; the error says so, and where to build instead.
TEST_F(PitfallsTest, BuildingAnOpAfterTheSessionExistsIsRefused) {
  auto session = MonitoredTrainingSession(options_);
  EXPECT_THAT([&] { ScalarSummary("late", Constant(1.0f)); },
              ThrowsMessage<RuntimeError>(
                  AllOf(StartsWith("Graph is finalized and cannot be modified"),
                        HasSubstr("when the session was created, by Scaffold::Finalize"),
                        HasSubstr("Build every op"))));
  session->Close();
  EXPECT_NO_THROW(Constant(1.0f));  // After Close the graph is as the session found it.
}

// DeepSpeech#695, #6081: a CheckpointSaverHook of one's own but no checkpoint_dir. It saves,
// but only the session creator restores, from checkpoint_dir: the second run starts again
// at step 0. mts warns when the hooks are made.
TEST_F(PitfallsTest, YourCheckpointSaverHookWithoutCheckpointDirDoesNotResume) {
  const std::string dir = NewDir("own_hook");
  CheckpointSaverHookOptions saving;
  saving.save_steps = 1;
  for (int run = 0; run < 2; ++run) {
    options_.hooks = {std::make_shared<CheckpointSaverHook>(dir, saving)};
    ScopedLogCapture log;
    auto session = MonitoredTrainingSession(options_);
    EXPECT_EQ(session->Run(train_).scalar<int64_t>(), 1);  // Both runs start at step 0.
    session->Run(train_);
    session->Close();
    EXPECT_TRUE(log.Contains("but checkpoint_dir is empty, so nothing restores from there"));
  }
  EXPECT_EQ(LatestCheckpoint(dir), JoinPath(dir, "model.ckpt-2"));
}

// DeepSpeech#1317: one's own CheckpointSaverHook (a Saver keeping 1) and checkpoint_dir,
// with the default seconds: MonitoredTrainingSession adds its own hook in the same
// directory, whose Saver keeps 5 and rewrites the state file. mts warns.
TEST_F(PitfallsTest, YourCheckpointSaverHookBesideCheckpointDirMakesTwoSavers) {
  options_.checkpoint_dir = NewDir("two_savers");
  SaverOptions keep_one;
  keep_one.max_to_keep = 1;
  CheckpointSaverHookOptions saving;
  saving.save_steps = 1;
  saving.saver = std::make_shared<Saver>(std::vector<Variable>{}, keep_one);
  options_.hooks = {std::make_shared<CheckpointSaverHook>(options_.checkpoint_dir, saving)};
  ScopedLogCapture log;
  auto session = MonitoredTrainingSession(options_);
  for (int i = 0; i < 3; ++i) session->Run(train_);
  session->Close();
  EXPECT_TRUE(log.Contains("and so does the default one MonitoredTrainingSession adds"));
  // The default hook's final save wrote the state file last, with its own list.
  EXPECT_THAT(GetCheckpointState(options_.checkpoint_dir)->all_model_checkpoint_paths,
              SizeIs(Ge(2u)));
}

// #29772, #17951: an error other than OutOfRange leaves the loop. As TensorFlow, the close
// is the one after an error: no hook's End, so no final checkpoint (the last is the one of
// the session's creation), and the error reaches the caller. The input threads are stopped
// and joined (or, past stop_grace_period_secs, left behind with a warning): the exit never
// hangs on them.
TEST_F(PitfallsTest, AnErrorLeavingTheLoopSkipsTheFinalCheckpoint) {
  Queue input = FIFOQueue(1, {DataType::kInt64}, {TensorShape{}}, "input");
  AddQueueRunner(std::make_shared<QueueRunner>(
      input, std::vector<Operation*>{input.Enqueue({global_step_.value()})}));
  options_.checkpoint_dir = NewDir("error");
  auto session = MonitoredTrainingSession(options_);
  EXPECT_THROW(WithMonitoredSession(*session,
                                    [&](MonitoredSession& s) {
                                      for (int i = 0; i < 5; ++i) s.Run(train_);
                                      throw InternalError("a bug in the loop");
                                    }),
               InternalError);
  EXPECT_TRUE(session->ShouldStop());  // Closed; the queue runner's thread joined.
  EXPECT_EQ(LatestCheckpoint(options_.checkpoint_dir),
            JoinPath(options_.checkpoint_dir, "model.ckpt-0"));
}

}  // namespace
}  // namespace mts
