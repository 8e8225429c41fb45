// `train_spirals ... | head -3`, issue 32: once head has its three lines it exits, and the
// next line train_spirals prints meets a pipe nobody reads. The default SIGPIPE killed it
// there (exit 141), silently: its state file still named model.ckpt-0 and its event file
// held only its version record, the rest lost in a buffer. Now the program ignores SIGPIPE
// (as Python does), takes the failed write (EPIPE) as a request to stop, and stops as on
// SIGTERM: exit 0, the reason on stderr, the final checkpoint at the step it stopped, the
// events on disk. The tests close the read end of the child's stdout, as head does.
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/tensor.h"
#include "src/02_chief_worker/checkpoint/checkpoint_file.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/03_hooked/events/event_file_reader.h"
#include "src/platform/file_system.h"
#include "tests/testing/child_process.h"

namespace mts {
namespace {

using ::testing::HasSubstr;

std::string TempPath(const std::string& name) { return JoinPath(std::getenv("TEST_TMPDIR"), name); }

// How the child ended, for a failure message.
std::string Ending(int status) {
  return WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                             : "exit " + std::to_string(WEXITSTATUS(status));
}

// [mts:test-closed-stdout]
TEST(ClosedStdoutTest, TrainSpiralsPipedIntoHeadStopsWithItsFinalCheckpointAndEvents) {
  const std::string dir = TempPath("head");
  const std::string stderr_path = dir + ".stderr";
  ChildProcess trainer(RunfilePath("examples/train_spirals"),
                       {"--steps=1000000000", "--log_every=100", "--checkpoint_dir=" + dir},
                       stderr_path);
  // head -3: three lines (the start, the plan, "step   100 ..."), then it is gone.
  for (int line = 0; line < 3; ++line) ASSERT_NE(trainer.ReadLine(), "");
  trainer.CloseStdout();
  const int status = trainer.Wait();
  const std::string log = DefaultFileSystem()->ReadFile(stderr_path);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << Ending(status) << "\n" << log;

  // It said why it stopped.
  EXPECT_THAT(log, HasSubstr("train_spirals: standard output is closed (Broken pipe: its "
                             "reader, such as head, has exited); nothing more is printed there."));
  EXPECT_THAT(log, HasSubstr("Standard output is closed (a write to it failed: its reader, such "
                             "as head, has exited): stopping after this step; the final "
                             "checkpoint is written at close."));
  // The final checkpoint: past the step head saw, and named by the state file.
  const std::optional<std::string> latest = LatestCheckpoint(dir);
  ASSERT_TRUE(latest.has_value());
  const int64_t stopped_at =
      CheckpointReader(*DefaultFileSystem(), *latest).Read("global_step").scalar<int64_t>();
  EXPECT_GE(stopped_at, 200);  // The first line nobody read was step 200's, or a later one.
  EXPECT_EQ(*latest, dir + "/model.ckpt-" + std::to_string(stopped_at));
  // The events flushed at the clean close: summaries of the steps trained, not only the
  // file's version record.
  const std::vector<ScalarValue> scalars = ScalarSummaries(ReadEventDirectory(dir));
  EXPECT_TRUE(std::any_of(scalars.begin(), scalars.end(),
                          [](const ScalarValue& value) {
                            return value.tag.rfind("loss", 0) == 0 &&
                                   value.step >= 100;  // "loss_1": the op is "loss".
                          }))
      << scalars.size() << " scalars";
}
// [mts:test-closed-stdout-end]

// The smallest example prints only after training: a closed pipe costs it its result lines,
// which it says, and nothing else.
TEST(ClosedStdoutTest, TrainLinearRegressionWithNoReaderSaysSoAndEndsNormally) {
  const std::string stderr_path = TempPath("linear.stderr");
  ChildProcess trainer(RunfilePath("examples/train_linear_regression"), {"--steps=50"},
                       stderr_path);
  trainer.CloseStdout();  // Nobody ever reads: every line it prints meets a closed pipe.
  const int status = trainer.Wait();
  const std::string log = DefaultFileSystem()->ReadFile(stderr_path);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << Ending(status) << "\n" << log;
  EXPECT_THAT(log, HasSubstr("train_linear_regression: standard output is closed"));
}

}  // namespace
}  // namespace mts
