// The promise SignalStopHook makes to a preempted job, checked on the real program: the
// main example (examples/train_spirals) trains towards a step it would take hours to reach,
// with only the default checkpoint every 600 seconds, and gets SIGTERM (a scheduler's
// preemption) or SIGINT (Ctrl-C) mid-run. It must
//   - exit with status 0, soon, instead of dying of the signal;
//   - log that it stops after the step;
//   - leave as newest checkpoint the step at which it stopped: the final save happened, so
//     nothing trained is lost;
//   - and resume from that very checkpoint when run again.
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/01_session/tensor.h"
#include "src/02_chief_worker/checkpoint/checkpoint_file.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/platform/file_system.h"
#include "tests/testing/child_process.h"

namespace mts {
namespace {

// A running train_spirals: its stdout through a pipe, its stderr into a file.
class Trainer : public ChildProcess {
 public:
  Trainer(const std::vector<std::string>& args, const std::string& stderr_path)
      : ChildProcess(RunfilePath("examples/train_spirals"), args, stderr_path) {}
};

// The step a "step   200  loss ..." progress line reports, or -1 for other lines.
int64_t ProgressStep(const std::string& line) {
  return line.rfind("step ", 0) == 0 ? std::stoll(line.substr(5)) : -1;
}

class SignalFinalCheckpointTest : public ::testing::TestWithParam<int> {};

TEST_P(SignalFinalCheckpointTest, StopsCleanlyWithAFinalCheckpointAndResumesThere) {
  const int sig = GetParam();
  const std::string name = sig == SIGTERM ? "SIGTERM" : "SIGINT";
  const std::string dir = JoinPath(std::getenv("TEST_TMPDIR"), name);
  const std::string stderr_path = dir + ".stderr";
  const int64_t kFarAway = 1000000000;  // Hours of training: only the signal ends this run.

  int64_t stopped_at = -1;
  {
    Trainer trainer(
        {"--steps=" + std::to_string(kFarAway), "--log_every=100", "--checkpoint_dir=" + dir},
        stderr_path);
    // 1. Let it train a while: until it reports step 200.
    int64_t progress = -1;
    std::string line;
    while (progress < 200) {
      line = trainer.ReadLine();
      ASSERT_FALSE(line.empty()) << "it ended before step 200:\n"
                                 << DefaultFileSystem()->ReadFile(stderr_path);
      progress = std::max(progress, ProgressStep(line));
    }
    // 2. The signal, then everything it prints until it exits.
    const auto signalled = std::chrono::steady_clock::now();
    trainer.Signal(sig);
    std::vector<std::string> rest;
    for (line = trainer.ReadLine(); !line.empty(); line = trainer.ReadLine()) {
      rest.push_back(line);
    }
    const int status = trainer.Wait();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - signalled).count();

    ASSERT_TRUE(WIFEXITED(status)) << "it died of signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 0) << DefaultFileSystem()->ReadFile(stderr_path);
    // Not a speed measurement: a liveness bound, orders of magnitude above a step and a save.
    EXPECT_LT(seconds, 30.0) << "it took long to stop after the signal";
    ASSERT_GE(rest.size(), 2u);
    ASSERT_EQ(rest[rest.size() - 2].rfind("Stopped at step ", 0), 0u) << rest[rest.size() - 2];
    stopped_at = std::stoll(rest[rest.size() - 2].substr(16));
    EXPECT_GE(stopped_at, progress);
    EXPECT_LT(stopped_at, kFarAway);
    EXPECT_EQ(rest.back(),
              "Newest checkpoint: " + dir + "/model.ckpt-" + std::to_string(stopped_at));
  }

  // 3. What it logged, and what is on disk: the final save, at the step it stopped at.
  const std::string log = DefaultFileSystem()->ReadFile(stderr_path);
  EXPECT_NE(log.find("Received " + name +
                     ": stopping after this step; the final checkpoint is written at close."),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("Saving checkpoints for " + std::to_string(stopped_at) + " into"),
            std::string::npos)
      << log;
  const std::optional<std::string> latest = LatestCheckpoint(dir);
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(*latest, dir + "/model.ckpt-" + std::to_string(stopped_at));
  EXPECT_EQ(CheckpointReader(*DefaultFileSystem(), *latest).Read("global_step").scalar<int64_t>(),
            stopped_at);

  // 4. Run again: it resumes from that checkpoint, and trains on to the new target.
  Trainer again(
      {"--steps=" + std::to_string(stopped_at + 50), "--log_every=100", "--checkpoint_dir=" + dir},
      dir + ".stderr2");
  EXPECT_EQ(again.ReadLine(),
            "Resuming from " + *latest + " at step " + std::to_string(stopped_at));
  std::string last, line;
  while (!(line = again.ReadLine()).empty()) last = line;
  const int status = again.Wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(last, "Newest checkpoint: " + dir + "/model.ckpt-" + std::to_string(stopped_at + 50));
}

INSTANTIATE_TEST_SUITE_P(SigtermAndSigint, SignalFinalCheckpointTest,
                         ::testing::Values(SIGTERM, SIGINT),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(info.param == SIGTERM ? "SIGTERM" : "SIGINT");
                         });

}  // namespace
}  // namespace mts
