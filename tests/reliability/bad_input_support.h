// bad_input_support.h: what the rows of the bad-input table share (bad_inputs.h).
//
//   bad_inputs.h                             the table: one row per mistake
//   bad_inputs.cc                            rows of stages 01 to 05, and the runner
//   bad_inputs_monitored_distributed.cc      rows of stages 06 and 07
//   bad_inputs_examples.cc                   rows of the examples, run as programs
//   bad_input_support.h  <-- this file: a fresh graph per row, a hook that throws, the
//                            check that a checkpoint survived, the row constructors
//
// The rows are split by stage so that no file grows past what a reader can hold, but they
// form one table, in stage order: MakeRows (bad_inputs.cc) appends the rows of stages 06
// and 07 after its own, then those of the examples.
#ifndef MTS_TESTS_RELIABILITY_BAD_INPUT_SUPPORT_H_
#define MTS_TESTS_RELIABILITY_BAD_INPUT_SUPPORT_H_

#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "src/01_session/graph.h"
#include "src/03_hooked/session_run_hook.h"
#include "tests/reliability/bad_inputs.h"
#include "tests/testing/child_process.h"

namespace mts {

/// A graph of its own, made the default for the action's lifetime.
struct Fresh {
  Graph graph;                     ///< The row's graph.
  DefaultGraphScope scope{graph};  ///< Makes it the default until the row ends.
};

/// "" if the state file of `dir` still names `path` and it restores a float variable w equal
/// to `w`; else what is wrong.
std::string CheckpointHolds(const std::string& dir, const std::string& path, float w);

/// CheckpointHolds with w = 7, the value every row's starting checkpoint holds.
std::string CheckpointIntact(const std::string& dir, const std::string& path);

/// A hook that throws InvalidArgumentError ("... fix the hook ...") from the method named
/// `where` ("Begin", "AfterCreateSession", "BeforeRun", "AfterRun" or "End").
class ThrowingHook : public SessionRunHook {
 public:
  /// A hook that throws from `where` and does nothing elsewhere.
  explicit ThrowingHook(std::string where);
  /// Throws if `where` is "Begin".
  void Begin() override;
  /// Throws if `where` is "AfterCreateSession".
  void AfterCreateSession(SessionInterface& session, Coordinator* coord) override;
  /// Throws if `where` is "BeforeRun".
  SessionRunArgs BeforeRun(SessionRunContext& run_context) override;
  /// Throws if `where` is "AfterRun".
  void AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) override;
  /// Throws if `where` is "End".
  void End(SessionInterface& session) override;

 private:
  void MaybeThrow(const std::string& method) const;
  std::string where_;
};

/// A row, one argument per field, so the table reads one line per field.
BadInput Row(std::string stage, std::string tried, std::string expected, std::string advice,
             std::function<void()> action, std::function<std::string()> after = nullptr);

/// Appends the rows of stages 06 (the monitored sessions) and 07 (the distributed runtime).
void AppendMonitoredAndDistributedRows(std::vector<BadInput>& rows);

/// How a program row's program ended, and the lines of its output the row keeps: what a
/// program row's action throws whatever the program did, so that the table reports the
/// ending ("exit 2", "killed by SIGTERM") where an in-process row reports an error class.
class ProgramEnded : public std::runtime_error {
 public:
  /// `ending` as the table shows it; `kept_lines` are the row's message.
  ProgramEnded(std::string ending, const std::string& kept_lines)
      : std::runtime_error(kept_lines), ending_(std::move(ending)) {}
  /// "exit N" for a program that exited, "killed by SIGNAME" for one a signal ended.
  const std::string& ending() const { return ending_; }

 private:
  std::string ending_;
};

/// What a program row runs, and what of its output it keeps.
struct ProgramRun {
  /// The program, as a path in the runfiles ("examples/distributed_spirals"); the table's
  /// and the test's BUILD targets list it in their data.
  std::string program;
  /// Its arguments.
  std::vector<std::string> args;
  /// The row's message: each line of the program's stdout and stderr that contains one of
  /// these texts, from where that text starts (so a time prefix falls away). Empty: all of
  /// stderr.
  std::vector<std::string> keep = {};
  /// Called once the program is running, to act on it (wait for a line, signal it, kill
  /// one of its children); it may throw std::runtime_error. Null: let the program run.
  std::function<void(ChildProcess&)> drive = nullptr;
  /// Called before the program starts, to prepare what it meets (a damaged checkpoint, a
  /// directory another process holds). Null: nothing to prepare.
  std::function<void()> setup = nullptr;
  /// How the program is started beyond its arguments (a file-size limit).
  ChildProcessOptions start = {};
};

/// A row of stage "examples": runs `run`'s program as a user would and expects it to end as
/// `expected` ("exit 2", "exit 0", "killed by SIGTERM"), its kept lines holding `advice`. A
/// step number in a kept line reads "step N" and a count of steps "N steps", since a job's
/// pace varies from run to run and the book's table must not.
BadInput ProgramRow(std::string tried, ProgramRun run, std::string expected, std::string advice,
                    std::function<std::string()> after = nullptr);

/// Appends the rows of the examples, after stage 07: the programs run as a user runs them.
void AppendExampleRows(std::vector<BadInput>& rows);

}  // namespace mts

#endif  // MTS_TESTS_RELIABILITY_BAD_INPUT_SUPPORT_H_
