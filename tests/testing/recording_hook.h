// recording_hook.h: a hook that writes down every call it gets, keeps what each call
// showed it, and does what the test scripts: ask for fetches and feeds, request a stop,
// fail. The double of the hook tests of stages 03 to 06.
//
//   MonitoredSession       calls Begin once, and End at a clean close
//     CoordinatedSession   calls AfterCreateSession for each session made (again after a recovery)
//       HookedSession      calls BeforeRun and AfterRun around each raw run
//         RecordingHook    <-- this double, at whichever of those layers a test builds
//
// Each call appends "<name>.<Method>" to a log that several hooks may share, so a test sees
// the order of calls across hooks, not only within one:
//
//   auto log = std::make_shared<std::vector<std::string>>();
//   auto first = std::make_shared<RecordingHook>("first", log);
//   auto second = std::make_shared<RecordingHook>("second", log);
//   first->request.fetches = {loss};
//   HookedSession session(std::move(raw), {first, second});
//   session.Run(train_op);
//   // *log == {"first.BeforeRun", "second.BeforeRun", "first.AfterRun", "second.AfterRun"},
//   // first->results holds the value of loss.
//
// It needs nothing above stage 03, so a HookedSession test builds no Coordinator; a test
// that wants the hook to stop the Coordinator uses CoordinatedRecordingHook (stage 04).
//
// Thread safety: none needed; the layers call their hooks from the thread that runs them.
//
// TensorFlow: monitored_session_test.py's FakeHook (its call_counter, request and
// last_run_values) plays this part there.
#ifndef MTS_TESTS_TESTING_RECORDING_HOOK_H_
#define MTS_TESTS_TESTING_RECORDING_HOOK_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/01_session/session_interface.h"
#include "src/03_hooked/session_run_hook.h"
#include "src/platform/errors.h"

namespace mts {

/// A hook that records its calls and what they showed it, and follows a script.
class RecordingHook : public SessionRunHook {
 public:
  /// A hook that appends "<name>.<Method>" to `log` on each call (a log of its own if none
  /// is given).
  explicit RecordingHook(
      std::string name = "hook",
      std::shared_ptr<std::vector<std::string>> log = std::make_shared<std::vector<std::string>>());

  /// Records; notes whether the default graph was finalized.
  void Begin() override;
  /// Records; keeps `session` and `coord`.
  /// \throws the OpError of fail_in_after_create_session, if set, after keeping them.
  void AfterCreateSession(SessionInterface& session, Coordinator* coord) override;
  /// Records; requests a stop if stop_in_before_run; returns `request`.
  SessionRunArgs BeforeRun(SessionRunContext& run_context) override;
  /// Records; keeps the results, options and metadata; requests the stops it is told to.
  /// \throws the OpError of fail_in_after_run, if set, after all that.
  void AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) override;
  /// Records; then fails if fail_in_end is set; else reads the global step, if the graph has
  /// one, into step_at_end (the session is still open in End).
  void End(SessionInterface& session) override;

  /// How many times `method` ("Begin", "AfterRun", ...) of this hook was called.
  int Count(const std::string& method) const;

  // ---- The script: set before the calls ----------------------------------------------------

  /// What BeforeRun asks for: fetches (their values come back in `results`), feeds, targets
  /// and options.
  SessionRunArgs request;
  /// BeforeRun requests a stop of the run loop.
  bool stop_in_before_run = false;
  /// AfterRun requests a stop of the run loop.
  bool stop_in_after_run = false;
  /// AfterCreateSession throws the OpError of this code, "<name> failed in AfterCreateSession".
  std::optional<ErrorCode> fail_in_after_create_session;
  /// AfterRun throws the OpError of this code, "<name> failed in AfterRun".
  std::optional<ErrorCode> fail_in_after_run;
  /// End throws the OpError of this code, "<name> failed in End".
  std::optional<ErrorCode> fail_in_end;

  // ---- What the calls showed: read after them ----------------------------------------------

  /// Whether the default graph was finalized when Begin was called.
  bool graph_finalized_at_begin = true;
  /// Whether the session's graph was finalized at the last AfterCreateSession.
  bool graph_finalized_at_create = false;
  /// The session of each AfterCreateSession, in order (the raw session, below the hooks).
  std::vector<SessionInterface*> sessions;
  /// The Coordinator of the last AfterCreateSession (null below stage 04).
  Coordinator* coord = nullptr;
  /// The values of `request.fetches` at the last AfterRun.
  std::vector<Tensor> results;
  /// The trace level of the merged options at the last AfterRun.
  RunOptions::TraceLevel trace_level_seen = RunOptions::TraceLevel::kNoTrace;
  /// The RunMetadata of the last AfterRun.
  const RunMetadata* metadata_seen = nullptr;
  /// The global step read in the last End; -1 if End was not called or the graph has none.
  int64_t step_at_end = -1;

 private:
  // Appends "<name>.<method>" to the log.
  void Record(const std::string& method);

  std::string name_;
  std::shared_ptr<std::vector<std::string>> log_;
};

}  // namespace mts

#endif  // MTS_TESTS_TESTING_RECORDING_HOOK_H_
