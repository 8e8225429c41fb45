// The promise SignalStopHook makes to a preempted job, checked on the real program: the
// main example (examples/train_spirals) trains towards a step it would take hours to reach,
// with only the default checkpoint every 600 seconds, and gets SIGTERM (a scheduler's
// preemption) or SIGINT (Ctrl-C) mid-run. It must
//   - exit with status 0, soon, instead of dying of the signal;
//   - log that it stops after the step;
//   - leave as newest checkpoint the step at which it stopped: the final save happened, so
//     nothing trained is lost;
//   - and resume from that very checkpoint when run again.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/01_session/tensor.h"
#include "src/02_chief_worker/checkpoint_file.h"
#include "src/02_chief_worker/checkpoint_state.h"
#include "src/platform/file_system.h"

extern char** environ;

namespace mts {
namespace {

// A running train_spirals: its stdout through a pipe, its stderr into a file.
class Trainer {
 public:
  Trainer(const std::vector<std::string>& args, const std::string& stderr_path) {
    const std::string binary =
        JoinPath(JoinPath(std::getenv("TEST_SRCDIR"), std::getenv("TEST_WORKSPACE")),
                 "examples/train_spirals");
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    posix_spawn_file_actions_addclose(&actions, fds[1]);
    posix_spawn_file_actions_addopen(&actions, 2, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    // The child starts with the default dispositions even if this test inherited an
    // ignored SIGINT (a background job's): an ignored signal would stay ignored.
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGTERM);
    sigaddset(&defaults, SIGINT);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);

    std::vector<char*> argv = {const_cast<char*>(binary.c_str())};
    for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    const int error = ::posix_spawn(&pid_, binary.c_str(), &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(fds[1]);
    if (error != 0) throw std::runtime_error("posix_spawn " + binary + " failed");
    out_ = fds[0];
  }
  ~Trainer() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      Wait();
    }
    ::close(out_);
  }

  // The next line it printed, or "" once its stdout is closed.
  std::string ReadLine() {
    for (;;) {
      const size_t newline = buffer_.find('\n');
      if (newline != std::string::npos) {
        std::string line = buffer_.substr(0, newline);
        buffer_.erase(0, newline + 1);
        return line;
      }
      char chunk[256];
      const ssize_t n = ::read(out_, chunk, sizeof(chunk));
      if (n <= 0) return "";
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

  void Signal(int sig) { ::kill(pid_, sig); }

  // Reaps it; the wait status.
  int Wait() {
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return status;
  }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  std::string buffer_;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

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
      ASSERT_FALSE(line.empty()) << "it ended before step 200:\n" << ReadFile(stderr_path);
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
    EXPECT_EQ(WEXITSTATUS(status), 0) << ReadFile(stderr_path);
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
  const std::string log = ReadFile(stderr_path);
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
