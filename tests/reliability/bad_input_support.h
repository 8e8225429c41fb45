// bad_input_support.h: what the rows of the bad-input table share (bad_inputs.h).
//
//   bad_inputs.h                             the table: one row per mistake
//   bad_inputs.cc                            rows of stages 01 to 05, and the runner
//   bad_inputs_monitored_distributed.cc      rows of stages 06 and 07
//   bad_input_support.h  <-- this file: a fresh graph per row, a hook that throws, the
//                            check that a checkpoint survived, the row constructor
//
// The rows are split by stage so that no file grows past what a reader can hold, but they
// form one table, in stage order: MakeRows (bad_inputs.cc) appends the rows of stages 06
// and 07 after its own.
#ifndef MTS_TESTS_RELIABILITY_BAD_INPUT_SUPPORT_H_
#define MTS_TESTS_RELIABILITY_BAD_INPUT_SUPPORT_H_

#include <functional>
#include <string>
#include <vector>

#include "src/01_session/graph.h"
#include "src/03_hooked/session_run_hook.h"
#include "tests/reliability/bad_inputs.h"

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

}  // namespace mts

#endif  // MTS_TESTS_RELIABILITY_BAD_INPUT_SUPPORT_H_
