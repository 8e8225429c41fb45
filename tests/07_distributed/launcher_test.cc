// distributed_spirals as a user runs it: the launcher (no --job_name) and its flags. What it
// promises about the user's data and processes (distributed_launcher.h): a bad flag stops it
// before anything starts; a --checkpoint_dir is used and never removed; SIGTERM stops the
// job in order with a final checkpoint and leaves no process behind, and neither does a
// SIGKILLed launcher; a chief that dies while workers train is reported; a closed stdout
// (`| head`) stops the job, or a chief run by hand, as SIGTERM does. Every wait is for a
// line the launcher prints or for a process to end; the launcher's --timeout_secs bounds it.
#include <signal.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "tests/07_distributed/task_cluster.h"
#include "tests/testing/child_process.h"

namespace mts {
namespace testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const char kProgram[] = "examples/distributed_spirals";

std::string TestDir(const std::string& name) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  std::filesystem::create_directories(dir);
  return dir;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A finished run of the program: its wait status and what it printed.
struct Finished {
  int status = 0;
  std::string out, err;
};

Finished RunToEnd(const std::vector<std::string>& args, const std::string& name) {
  const std::string err_path = TestDir("stderr") + "/" + name;
  ChildProcess child(RunfilePath(kProgram), args, err_path);
  Finished run;
  child.ReadRest();
  run.out = child.output();
  run.status = child.Wait();
  run.err = ReadFile(err_path);
  return run;
}

std::vector<ProcessWatch> WatchChildrenOf(pid_t parent) {
  std::vector<ProcessWatch> watches;
  for (pid_t pid : ChildrenOf(parent)) watches.emplace_back(pid);
  return watches;
}

// The launcher's flags for a small, slow job that is still training when a test strikes.
std::vector<std::string> LongJob(const std::string& checkpoint_dir) {
  return {"--num_workers=2",   "--train_steps=1000000", "--save_steps=20",
          "--log_every=20",    "--step_delay_ms=2",     "--checkpoint_dir=" + checkpoint_dir,
          "--timeout_secs=100"};
}

// The step in the name of the newest checkpoint of `dir` ("model.ckpt-57"), or -1.
long long NewestCheckpointStep(const std::string& dir) {
  const std::optional<std::string> latest = LatestCheckpoint(dir);
  return latest ? std::atoll(latest->c_str() + latest->rfind('-') + 1) : -1;
}

// One bad command line and the answer it must get.
struct BadFlags {
  std::vector<std::string> args;
  int status;
  std::string says;  // On stderr.
};

// [mts:test-bad-flags]
// Every bad value stops the program before anything starts, with status 2 and a line naming
// the flag and what it accepts; absl answers an unknown flag itself (status 1).
TEST(LauncherTest, BadFlagsStopItBeforeAnythingStarts) {
  const std::string cluster = "--cluster=ps=127.0.0.1:1;worker=127.0.0.1:2";
  const std::vector<BadFlags> cases = {
      {{"--log_every=0"}, 2, "--log_every=0: expected a whole number from 1 to 1000000000"},
      {{"--job_name=worker", cluster, "--task_index=abc"},
       2,
       "--task_index=abc: expected a whole number from 0 to 0 (the worker tasks"},
      {{"--train_steps=abc"}, 2, "--train_steps=abc: expected a whole number from 1"},
      {{"--train_steps=0"}, 2, "--train_steps=0: expected a whole number from 1"},
      {{"--num_workers=-1"}, 2, "--num_workers=-1: expected a whole number from 1 to 16"},
      {{"--num_workers=0"}, 2, "--num_workers=0: expected a whole number from 1 to 16"},
      {{"--recovery_wait_secs=0"}, 2, "expected a number of seconds from 0.001 to 86400"},
      {{"--job_name=chief"}, 2, "--job_name=chief: expected ps or worker"},
      {{"--cluster=ps=127.0.0.1:1"}, 2, "--cluster=ps=127.0.0.1:1: only a task"},
      {{"--restart_ps", "--train_steps=100"}, 2, "--restart_after_step=300: expected a whole"},
      {{"--no_such_flag=1"}, 1, "Unknown command line flag 'no_such_flag'"},
  };
  int n = 0;
  for (const BadFlags& bad : cases) {
    SCOPED_TRACE(::testing::PrintToString(bad.args));
    const Finished run = RunToEnd(bad.args, "bad" + std::to_string(++n));
    ASSERT_TRUE(WIFEXITED(run.status));
    EXPECT_EQ(WEXITSTATUS(run.status), bad.status);
    EXPECT_THAT(run.err, HasSubstr(bad.says));
    EXPECT_EQ(run.out, "");  // No launcher line: nothing was started.
  }
}
// [mts:test-bad-flags-end]

// --help prints the usage and the flags, and runs nothing.
TEST(LauncherTest, HelpPrintsTheUsageAndRunsNothing) {
  const Finished run = RunToEnd({"--help"}, "help");
  ASSERT_TRUE(WIFEXITED(run.status));
  EXPECT_EQ(WEXITSTATUS(run.status), 1);  // absl's status for --help.
  EXPECT_THAT(run.out, HasSubstr("Without --job_name it is the launcher"));
  EXPECT_THAT(run.out, HasSubstr("--train_steps"));
  EXPECT_THAT(run.out, Not(HasSubstr("[launcher]")));
}

// [mts:test-checkpoint-dir-kept]
// A --checkpoint_dir holding the user's files is used as TensorFlow would: the job saves
// into it, a second job resumes from it, and nothing of the user's is removed.
TEST(LauncherTest, AUsersCheckpointDirIsKeptAndResumedFrom) {
  const std::string dir = TestDir("users_dir");
  std::ofstream(dir + "/notes.txt") << "the user's own file\n";
  const std::vector<std::string> job = {"--num_workers=1", "--save_steps=10", "--log_every=10",
                                        "--checkpoint_dir=" + dir};
  std::vector<std::string> first = job, second = job;
  first.push_back("--train_steps=30");
  second.push_back("--train_steps=60");

  const Finished one = RunToEnd(first, "first");
  ASSERT_EQ(one.status, 0) << one.out << one.err;
  EXPECT_THAT(one.out, HasSubstr("[launcher] checkpoints in " + dir + ": yours, never removed"));
  EXPECT_EQ(ReadFile(dir + "/notes.txt"), "the user's own file\n");
  EXPECT_GE(NewestCheckpointStep(dir), 30);  // The final checkpoint, at the last step.

  const Finished two = RunToEnd(second, "second");
  ASSERT_EQ(two.status, 0) << two.out << two.err;
  const std::vector<long long> start = NumbersAfter(two.out, "session 1 ready at global step ");
  ASSERT_FALSE(start.empty()) << two.out;
  EXPECT_GE(start[0], 30);  // The chief restored the first job's final checkpoint.
  EXPECT_EQ(ReadFile(dir + "/notes.txt"), "the user's own file\n");
  EXPECT_GE(NewestCheckpointStep(dir), 60);
}
// [mts:test-checkpoint-dir-kept-end]

// Without --checkpoint_dir the launcher makes a directory of its own (mkdtemp, in $TMPDIR)
// and removes that one alone: what else is in $TMPDIR stays.
TEST(LauncherTest, WithoutACheckpointDirItRemovesOnlyTheDirectoryItMade) {
  const std::string tmp = TestDir("tmpdir");
  std::ofstream(tmp + "/other.txt") << "not the launcher's\n";
  setenv("TMPDIR", tmp.c_str(), 1);  // Where the launcher's child process makes its own.
  const Finished run =
      RunToEnd({"--num_workers=1", "--train_steps=20", "--log_every=10"}, "own_dir");
  unsetenv("TMPDIR");
  ASSERT_EQ(run.status, 0) << run.out << run.err;
  const std::string key = "[launcher] checkpoints in ";
  const size_t at = run.out.find(key);
  ASSERT_NE(at, std::string::npos) << run.out;
  const std::string made = run.out.substr(at + key.size(), run.out.find(',', at) - at - key.size());
  EXPECT_EQ(made.rfind(tmp + "/mts_distributed_", 0), 0u) << made;
  EXPECT_THAT(run.out, HasSubstr("made for this run and removed at its end"));
  EXPECT_FALSE(std::filesystem::exists(made)) << made;
  EXPECT_EQ(ReadFile(tmp + "/other.txt"), "not the launcher's\n");
}

// [mts:test-sigterm]
// SIGTERM to the launcher: the workers stop after their step, the chief writes a final
// checkpoint, the ps is stopped, every child has ended before the launcher does, and the
// launcher ends by the signal.
TEST(LauncherTest, SigtermStopsTheJobInOrderAndLeavesNoProcess) {
  const std::string dir = TestDir("sigterm");
  ChildProcess launcher(RunfilePath(kProgram), LongJob(dir));
  ASSERT_TRUE(launcher.ReadLineContaining("[worker:1] global step")) << launcher.output();
  const std::vector<ProcessWatch> children = WatchChildrenOf(launcher.pid());
  ASSERT_EQ(children.size(), 3u);  // The ps, the chief and worker 1.
  launcher.Signal(SIGTERM);
  launcher.ReadRest();
  const int status = launcher.Wait();
  const std::string out = launcher.output();
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status << out;
  for (const ProcessWatch& child : children) {
    EXPECT_TRUE(child.Ended(0)) << "pid " << child.pid() << " outlived the launcher";
  }
  const size_t received = out.find("[launcher] received SIGTERM");
  ASSERT_NE(received, std::string::npos) << out;
  // The chief's final save comes after the signal, and is the newest checkpoint.
  const std::vector<long long> saved =
      NumbersAfter(out.substr(received), "[worker:0 chief] saved checkpoint at global step ");
  ASSERT_FALSE(saved.empty()) << out;
  EXPECT_EQ(NewestCheckpointStep(dir), saved.back());
  EXPECT_EQ(NumbersAfter(out.substr(received), "done: global step ").size(), 2u) << out;
  EXPECT_THAT(out, HasSubstr("[launcher] stopped by SIGTERM: 2 of 2 workers stopped cleanly"));
}
// [mts:test-sigterm-end]

// [mts:test-launcher-closed-stdout]
// Issue 32: `distributed_spirals | head -3`. Once nobody reads its output the launcher stops
// the job as on SIGTERM: the workers stop after their step, the chief writes its final
// checkpoint, no process outlives it; it says so on stderr, and ends with status 1 (the job
// did not finish).
TEST(LauncherTest, ALauncherWhoseOutputIsClosedStopsTheJobWithAFinalCheckpoint) {
  const std::string dir = TestDir("launcher_head");
  const std::string err_path = TestDir("stderr") + "/launcher_head";
  ChildProcess launcher(RunfilePath(kProgram), LongJob(dir), err_path);
  ASSERT_TRUE(launcher.ReadLineContaining("[worker:1] global step")) << launcher.output();
  const std::vector<ProcessWatch> children = WatchChildrenOf(launcher.pid());
  ASSERT_EQ(children.size(), 3u);
  launcher.CloseStdout();
  const int status = launcher.Wait();
  const std::string err = ReadFile(err_path);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << status << err;
  for (const ProcessWatch& child : children) {
    EXPECT_TRUE(child.Ended(0)) << "pid " << child.pid() << " outlived the launcher";
  }
  EXPECT_THAT(err, HasSubstr("distributed_spirals: standard output is closed (Broken pipe"));
  EXPECT_THAT(err, HasSubstr("[launcher] standard output is closed: the workers stop after their "
                             "current step (the chief writes its final checkpoint), then the ps"));
  const std::vector<long long> newest = NumbersAfter(
      err,
      "[launcher] stopped by its closed standard output: 2 of 2 workers stopped cleanly; "
      "the newest checkpoint is at step ");
  ASSERT_EQ(newest.size(), 1u) << err;
  EXPECT_EQ(NewestCheckpointStep(dir), newest[0]);
}
// [mts:test-launcher-closed-stdout-end]

// The same for a chief run by hand into `| head`: it stops after its step and writes its
// final checkpoint, where SIGPIPE killed it before.
TEST(LauncherTest, AChiefRunByHandWhoseOutputIsClosedStopsWithAFinalCheckpoint) {
  TaskCluster cluster(1, {});
  cluster.StartPs();
  const std::string dir = TestDir("chief_head");
  const std::string err_path = TestDir("stderr") + "/chief_head";
  ChildProcess chief(
      RunfilePath(kProgram),
      {"--job_name=worker", "--task_index=0", "--cluster=" + cluster.cluster_flag(),
       "--checkpoint_dir=" + dir, "--train_steps=1000000", "--log_every=20", "--step_delay_ms=1"},
      err_path);
  long long seen = -1;
  for (int line = 0; line < 3; ++line) {
    const std::optional<std::string> progress = chief.ReadLineContaining("] global step ");
    ASSERT_TRUE(progress) << ReadFile(err_path);
    seen = NumbersAfter(*progress, "] global step ")[0];
  }
  chief.CloseStdout();
  const int status = chief.Wait();
  const std::string err = ReadFile(err_path);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << err;
  EXPECT_THAT(err, HasSubstr("Standard output is closed (a write to it failed: its reader, such "
                             "as head, has exited): stopping after this step; the final "
                             "checkpoint is written at close."));
  EXPECT_GT(NewestCheckpointStep(dir), seen);
}

// A launcher killed with SIGKILL cannot clean up: the kernel kills its tasks
// (PR_SET_PDEATHSIG), so none of them trains on as an orphan.
TEST(LauncherTest, ALauncherKilledWithSigkillTakesItsTasksWithIt) {
  ChildProcess launcher(RunfilePath(kProgram), LongJob(TestDir("sigkill")));
  ASSERT_TRUE(launcher.ReadLineContaining("[worker:1] global step")) << launcher.output();
  const std::vector<ProcessWatch> children = WatchChildrenOf(launcher.pid());
  ASSERT_EQ(children.size(), 3u);
  EXPECT_TRUE(launcher.Kill());
  for (const ProcessWatch& child : children) {
    EXPECT_TRUE(child.Ended(/*timeout_ms=*/30000)) << "pid " << child.pid() << " still runs";
  }
}

// [mts:test-chief-gone]
// The chief killed while worker 1 trains: the launcher says that no checkpoint will be
// written past the chief's last one, and worker 1 warns once the newest checkpoint falls
// more than three saves behind the global step.
TEST(LauncherTest, AChiefThatDiesWhileWorkersTrainIsReported) {
  const std::string dir = TestDir("chief_gone");
  ChildProcess launcher(
      RunfilePath(kProgram),
      {"--num_workers=2", "--train_steps=400", "--save_steps=20", "--log_every=20",
       "--step_delay_ms=5", "--checkpoint_dir=" + dir, "--timeout_secs=100"});
  // Until the chief saved at step 20 or later.
  for (long long step = -1; step < 20;) {
    const std::optional<std::string> line =
        launcher.ReadLineContaining("[worker:0 chief] saved checkpoint at global step ");
    ASSERT_TRUE(line) << launcher.output();
    step = NumbersAfter(*line, "saved checkpoint at global step ")[0];
  }
  pid_t chief = -1;
  for (pid_t pid : ChildrenOf(launcher.pid())) {
    const std::vector<std::string> args = ArgumentsOf(pid);
    if (args.size() > 2 && args[1] == "--job_name=worker" && args[2] == "--task_index=0") {
      chief = pid;
    }
  }
  ASSERT_GT(chief, 0);
  kill(chief, SIGKILL);
  launcher.ReadRest();
  const int status = launcher.Wait();
  const std::string out = launcher.output();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << status;  // The chief failed.
  const std::vector<long long> saved =
      NumbersAfter(out, "[worker:0 chief] saved checkpoint at global step ");
  ASSERT_FALSE(saved.empty());
  EXPECT_THAT(out, HasSubstr("[launcher] the chief exited (killed by SIGKILL) while 1 worker "
                             "still trains: the workers train on but no checkpoint will be "
                             "written past step " +
                             std::to_string(saved.back())));
  EXPECT_THAT(out, HasSubstr("[worker:1] (warning) the newest checkpoint in " + dir +
                             " is at global step "));
  EXPECT_THAT(out, HasSubstr("the chief may be gone"));
  EXPECT_THAT(out, HasSubstr("[worker:1] done: global step "));  // It trained on to the end.
}
// [mts:test-chief-gone-end]

}  // namespace
}  // namespace testing
}  // namespace mts
