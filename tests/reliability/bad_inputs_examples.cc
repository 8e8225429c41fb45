// bad_inputs_examples.cc: the rows of the bad-input table (bad_inputs.h) of stage
// "examples": the example programs run as a user runs them, with bad flags, a directory of
// the user's, a signal, a dead chief. Each row starts the program (ChildProcess), may act on
// it while it runs, and reports how it ended ("exit 2", "killed by SIGTERM") with the lines
// of its output that say what to do.
//
// A row for another program is one ProgramRow: the program's path in the runfiles (list the
// binary in the `data` of //tests/reliability's library, test and table), its arguments,
// the lines to keep, the ending and the advice. Rows that run a job keep it small (one or
// two workers, a few hundred steps) and wait for the line that says the moment came, never
// for a time.
#include <signal.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "src/02_chief_worker/checkpoint_state.h"
#include "src/platform/file_system.h"
#include "tests/reliability/bad_input_support.h"
#include "tests/testing/child_process.h"

namespace mts {
namespace {

const char kDistributed[] = "examples/distributed_spirals";

std::string SignalName(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

// A wait status as the table's "error class" column shows it.
std::string Ending(int status) {
  if (WIFSIGNALED(status)) return "killed by " + SignalName(WTERMSIG(status));
  return "exit " + std::to_string(WEXITSTATUS(status));
}

// The lines of `text` that contain one of `keep`, each from where that text starts, with
// step numbers and step counts masked (see ProgramRow).
std::string KeptLines(const std::string& text, const std::vector<std::string>& keep) {
  std::string kept;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    for (const std::string& key : keep) {
      const size_t at = line.find(key);
      if (at == std::string::npos) continue;
      kept += (kept.empty() ? "" : "\n") + line.substr(at);
      break;
    }
  }
  kept = std::regex_replace(kept, std::regex(R"(step [0-9]+)"), "step N");
  return std::regex_replace(kept, std::regex(R"([0-9]+ steps)"), "N steps");
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Reads the program's lines until one contains `text`, or throws: the moment never came.
std::string WaitForLine(ChildProcess& program, const std::string& text) {
  const std::optional<std::string> line = program.ReadLineContaining(text);
  if (!line) throw std::runtime_error("the program ended before printing '" + text + "'");
  return *line;
}

// The step a line "... saved checkpoint at global step N" names.
long long SavedStep(const std::string& line) {
  const std::string key = "saved checkpoint at global step ";
  return std::atoll(line.c_str() + line.find(key) + key.size());
}

// The flags of a small job that trains long enough for a row to strike while it runs.
std::vector<std::string> SmallJob(const std::string& checkpoint_dir, int train_steps) {
  return {"--num_workers=2",
          "--train_steps=" + std::to_string(train_steps),
          "--save_steps=20",
          "--log_every=20",
          "--step_delay_ms=5",
          "--checkpoint_dir=" + checkpoint_dir,
          "--timeout_secs=100"};
}

// The pids a drive step recorded, for the `after` check that none outlived the program.
using Pids = std::shared_ptr<std::vector<pid_t>>;

std::string NoneStillRuns(const Pids& pids) {
  std::string alive;
  for (pid_t pid : *pids) {
    // The launcher reaps its tasks: a pid still there is a process it left behind.
    if (::kill(pid, 0) == 0 || errno != ESRCH) alive += " " + std::to_string(pid);
  }
  return alive.empty() ? "" : "processes outlived the launcher:" + alive;
}

}  // namespace

BadInput ProgramRow(std::string tried, ProgramRun run, std::string expected, std::string advice,
                    std::function<std::string()> after) {
  auto action = [run = std::move(run)] {
    static int runs = 0;
    const std::string stderr_path =
        JoinPath(FreshDir("program_rows"), "stderr_" + std::to_string(++runs));
    ChildProcess program(RunfilePath(run.program), run.args, stderr_path);
    if (run.drive) run.drive(program);
    program.ReadRest();
    const int status = program.Wait();
    const std::string err = ReadAll(stderr_path);
    throw ProgramEnded(Ending(status), run.keep.empty()
                                           ? KeptLines(err, {""})
                                           : KeptLines(program.output() + err, run.keep));
  };
  return Row("examples", std::move(tried), std::move(expected), std::move(advice),
             std::move(action), std::move(after));
}

void AppendExampleRows(std::vector<BadInput>& rows) {
  // ---- distributed_spirals: flags --------------------------------------------------------
  for (const auto& [value, advice] : std::vector<std::pair<std::string, std::string>>{
           {"--log_every=0", "--log_every=0: expected a whole number from 1 to 1000000000"},
           {"--train_steps=abc", "--train_steps=abc: expected a whole number from 1"},
           {"--train_steps=0", "--train_steps=0: expected a whole number from 1"},
           {"--num_workers=-1", "--num_workers=-1: expected a whole number from 1 to 16"},
           {"--num_workers=0", "--num_workers=0: expected a whole number from 1 to 16"}}) {
    rows.push_back(ProgramRow("distributed_spirals " + value, {kDistributed, {value}}, "exit 2",
                              advice));
  }
  rows.push_back(ProgramRow(
      "distributed_spirals --job_name=worker --task_index=abc",
      {kDistributed,
       {"--job_name=worker", "--cluster=ps=127.0.0.1:2222;worker=127.0.0.1:2223",
        "--task_index=abc"}},
      "exit 2", "--task_index=abc: expected a whole number from 0 to 0"));
  rows.push_back(ProgramRow("distributed_spirals --no_such_flag (absl refuses it)",
                            {kDistributed, {"--no_such_flag"}}, "exit 1",
                            "Unknown command line flag 'no_such_flag'"));
  rows.push_back(ProgramRow("distributed_spirals --help (usage, nothing runs)",
                            {kDistributed, {"--help"}, {"distributed_spirals: Trains"}}, "exit 1",
                            "Without --job_name it is the launcher"));

  // ---- distributed_spirals: the user's data and processes --------------------------------
  // The user's directory holds a file of theirs before the run (written as the row is made).
  const std::string users_dir = FreshDir("users_dir");
  std::ofstream(JoinPath(users_dir, "notes.txt")) << "the user's own file\n";
  rows.push_back(ProgramRow(
      "distributed_spirals --checkpoint_dir=DIR, DIR holding a file of the user's",
      {kDistributed,
       {"--num_workers=1", "--train_steps=20", "--save_steps=10", "--log_every=10",
        "--checkpoint_dir=" + users_dir},
       {"[launcher] checkpoints in "}},
      "exit 0", "never removed or emptied",
      [users_dir] {
        if (ReadAll(JoinPath(users_dir, "notes.txt")) != "the user's own file\n") {
          return std::string("the user's notes.txt is gone or changed");
        }
        if (!LatestCheckpoint(users_dir)) return std::string("no checkpoint was saved");
        return std::string();
      }));
  auto tasks = std::make_shared<std::vector<pid_t>>();
  rows.push_back(ProgramRow(
      "SIGTERM to the distributed_spirals launcher mid-run",
      {kDistributed, SmallJob(FreshDir("sigterm"), 1000000),
       {"[launcher] received", "[launcher] stopped"},
       [tasks](ChildProcess& launcher) {
         WaitForLine(launcher, "[worker:1] global step");
         *tasks = ChildrenOf(launcher.pid());
         launcher.Signal(SIGTERM);
       }},
      "killed by SIGTERM", "the chief writes its final checkpoint",
      [tasks] { return NoneStillRuns(tasks); }));
  rows.push_back(ProgramRow(
      "the chief of a distributed_spirals job killed while a worker trains",
      {kDistributed, SmallJob(FreshDir("chief_gone"), 400),
       {"[launcher] the chief", "(warning) the newest checkpoint"},
       [](ChildProcess& launcher) {
         while (SavedStep(WaitForLine(launcher, "[worker:0 chief] saved checkpoint")) < 20) {
         }
         for (pid_t pid : ChildrenOf(launcher.pid())) {
           const std::vector<std::string> args = ArgumentsOf(pid);
           if (args.size() > 2 && args[1] == "--job_name=worker" && args[2] == "--task_index=0") {
             ::kill(pid, SIGKILL);
           }
         }
       }},
      "exit 1", "no checkpoint will be written past step N"));
}

}  // namespace mts
