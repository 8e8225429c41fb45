// Pitfalls of stage 03 that TF1 users reported, each reproduced as the book's appendix
// (chapters/appendix_pitfalls) tells it. The appendix cites each case by name;
// //docs:pitfalls_test checks that every name exists.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/summary.pb.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/02_chief_worker/saver.h"
#include "src/03_hooked/events/summary_writer_cache.h"
#include "src/03_hooked/hooks/checkpoint_saver_hook.h"
#include "src/03_hooked/hooks/stop_at_step_hook.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "src/platform/logging.h"
#include "tests/03_hooked/hooks/hook_test_harness.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/new_dir.h"

namespace mts {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using ::testing::ThrowsMessage;

// The names of the event files in `dir`.
std::vector<std::string> EventFiles(const std::string& dir) {
  std::vector<std::string> found;
  for (const std::string& name : DefaultFileSystem()->ListDirectory(dir)) {
    if (name.find("tfevents") != std::string::npos) found.push_back(name);
  }
  return found;
}

// #34929: a loop that makes two runs per iteration but asks ShouldStop once. The first run
// of the last iteration reaches last_step and the hook asks to stop; the second run is
// refused, and the message says what to do.
TEST(PitfallsTest, TwoRunsPerIterationRunPastTheStopRequest) {
  HookTestHarness harness;
  HookedSession& session = harness.Start({std::make_shared<StopAtStepHook>(std::nullopt, 3)});
  auto iteration = [&] {
    session.Run(harness.train_op());      // Training.
    session.Run(harness.step().value());  // A second run, say to log something.
  };
  iteration();
  iteration();
  EXPECT_THAT(iteration, ThrowsMessage<RuntimeError>(
                             AllOf(StartsWith("Run called even after should_stop requested."),
                                   HasSubstr("check ShouldStop() before every Run"))));
  EXPECT_EQ(harness.GlobalStep(), 3);
}

// #14697: a train op that never increments the global step (minimize() without
// global_step). Every checkpoint is at step 0, so after the one made with the session none
// is ever due: only model.ckpt-0, holding the values from before training, is written.
// mts says so while training and at the end.
TEST(PitfallsTest, AStepThatNeverMovesSavesOnlyTheFirstCheckpoint) {
  HookTestHarness harness;
  Variable w(Tensor::Scalar(0.0f), "w");
  Operation* train_without_step = w.AssignAdd(Constant(1.0f)).op();
  FakeClock clock;
  CheckpointSaverHookOptions options;
  options.save_secs = 600;
  options.clock = &clock;
  options.saver = std::make_shared<Saver>();
  const std::string dir = NewDir("no_step");
  auto hook = std::make_shared<CheckpointSaverHook>(dir, options);
  HookedSession& session = harness.Start({hook});
  ScopedLogCapture log;
  for (int i = 0; i < 5; ++i) {
    clock.Advance(int64_t{700} * 1000000);
    session.Run(train_without_step);
  }
  harness.End();
  EXPECT_THAT(GetCheckpointState(dir)->all_model_checkpoint_paths,
              ElementsAre(EndsWith("model.ckpt-0")));
  EXPECT_TRUE(log.Contains("the global step is still 0"));
  EXPECT_TRUE(log.Contains("Minimize(loss, global_step)"));
}

// #13265: a CheckpointSaverHook given a Saver built in another graph. TensorFlow runs the
// saver's ops by name in the session's graph, so it may save nothing of this model; mts
// refuses at the first save, naming the graph to build the Saver in.
TEST(PitfallsTest, ASaverOfAnotherGraphIsRefused) {
  Graph other;
  std::shared_ptr<Saver> other_saver;
  {
    DefaultGraphScope scope(other);
    Variable v(Tensor::Scalar(1.0f), "v");
    other_saver = std::make_shared<Saver>();
  }
  HookTestHarness harness;
  CheckpointSaverHookOptions options;
  options.save_steps = 1;
  options.saver = other_saver;
  auto hook = std::make_shared<CheckpointSaverHook>(NewDir("other_graph"), options);
  EXPECT_THAT([&] { harness.Start({hook}); },
              ThrowsMessage<ValueError>(
                  AllOf(HasSubstr("another graph"), HasSubstr("build the Saver in the graph"))));
}

// #11350: evaluation summaries written into the training run's event file. The writer of a
// directory is one per process (SummaryWriterCache::Get, TensorFlow's FileWriterCache.get):
// the hooks' writer is the one a user gets, so both go to one file. A FileWriter of one's
// own in the same directory makes a second file, which TensorBoard reads as one run.
TEST(PitfallsTest, EvaluationSummariesShareTheTrainingRunsWriter) {
  HookTestHarness harness;
  const std::string dir = NewDir("train");
  CheckpointSaverHookOptions options;
  options.save_steps = 100;
  options.saver = std::make_shared<Saver>();
  HookedSession& session =
      harness.Start({std::make_shared<CheckpointSaverHook>(dir, options)});  // Writes events.
  session.Run(harness.train_op());
  tensorflow::Summary eval;
  tensorflow::Summary::Value* value = eval.add_value();
  value->set_tag("eval/accuracy");
  value->set_simple_value(0.9f);
  SummaryWriterCache::Get(dir)->AddSummary(eval, 1);
  harness.End();
  SummaryWriterCache::Get(dir)->Flush();
  EXPECT_EQ(EventFiles(dir).size(), 1u);
  FileWriter own(dir);  // What the user did first.
  own.AddSummary(eval, 1);
  own.Close();
  EXPECT_EQ(EventFiles(dir).size(), 2u);
  SummaryWriterCache::Clear();
}

}  // namespace
}  // namespace mts
