// fault_injection.h: sessions, creators and hooks that fail when a schedule says so, so a
// test (or a chapter's example) can preempt a training run on purpose and deterministically.
//
//   RecoverableSession     the layer these doubles exist to exercise
//     CoordinatedSession
//       HookedSession      FaultyHook fails a hook phase (AfterCreateSession, BeforeRun, AfterRun)
//         FaultySession    <-- fails a raw Run, below the hooks
//           Session        made by a creator that FaultySessionCreator and
//                          CountingSessionCreator wrap
//
// A real preemption (a parameter server restarting, a worker's machine taken away) cannot be
// summoned in a test, and a test that waits for one is not a test. What the layers above see
// of it is an AbortedError or UnavailableError raised from a call; these doubles raise
// exactly that, at exactly the call a FaultSchedule names:
//   - FaultSchedule: which calls fail, and with which code. One schedule counts the calls of
//     everything that shares it, across sessions: a FaultySession made after a recovery goes
//     on counting where the broken one stopped, so a fault is never replayed forever.
//     Schedules: a call, a set of calls, every k-th call, or a seeded random rate per call.
//   - FaultySession: a WrappedSession that fails Run when its schedule says so, before or
//     after the session below ran (after: the step's side effect happened and was lost).
//   - FaultySessionCreator: fails CreateSession when its creation schedule says so (before
//     anything is made, so nothing is left open), and can wrap every session it makes in a
//     FaultySession that shares one run schedule.
//   - CountingSessionCreator: counts attempts and successful creations.
//   - FunctionSessionCreator: a creator from a function, for sessions a test makes itself.
//   - FaultyHook: fails one hook method when its schedule says so.
//   - ErrorOf: the error of a code as a failing thread reports it (to a Coordinator).
//
// Example: a stack whose raw runs fail with AbortedError at the 3rd and 7th run, and whose
// second creation fails with UnavailableError:
//
//   auto counting = std::make_shared<CountingSessionCreator>(chief_creator);
//   auto faulty = std::make_shared<FaultySessionCreator>(
//       counting, FaultSchedule::AtCall(2, ErrorCode::kUnavailable),
//       FaultSchedule::AtCalls({{3, ErrorCode::kAborted}, {7, ErrorCode::kAborted}}));
//   RecoverableSession session(std::make_shared<CoordinatedSessionCreator>(faulty, hooks));
//
// A campaign of random faults at 2% of runs, the same on every run of the test:
//
//   auto runs = FaultSchedule::Random(0.02, {ErrorCode::kAborted, ErrorCode::kUnavailable},
//                                     /*seed=*/42);
//
// Thread safety: FaultSchedule and CountingSessionCreator are thread-safe; the sessions,
// creators and hooks are used from one thread at a time, like the layers they stand in for.
//
// TensorFlow: monitored_session_test.py's AbortAtNSession, RaiseOnceAtCountN and
// CountingSessionCreator play these parts there; the random schedule has no counterpart.
#ifndef MTS_TESTS_TESTING_FAULT_INJECTION_H_
#define MTS_TESTS_TESTING_FAULT_INJECTION_H_

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/platform/errors.h"
#include "src/02_chief_worker/session_creator.h"
#include "src/03_hooked/session_run_hook.h"
#include "src/03_hooked/wrapped_session.h"

namespace mts {

/// Which calls fail, and with which code: a rule over 1-based call numbers plus the count
/// of calls made so far. Share one schedule (by shared_ptr) among everything whose calls
/// should be counted together.
class FaultSchedule {
 public:
  /// The code call number `call` (1-based) fails with, or nullopt for a call that succeeds.
  using Rule = std::function<std::optional<ErrorCode>(int64_t call)>;

  /// A schedule that follows `rule`. Prefer the named factories below.
  explicit FaultSchedule(Rule rule);
  FaultSchedule(const FaultSchedule&) = delete;
  FaultSchedule& operator=(const FaultSchedule&) = delete;

  /// No call fails.
  static std::shared_ptr<FaultSchedule> Never();
  /// Only call number `call` fails, with `code`.
  static std::shared_ptr<FaultSchedule> AtCall(int64_t call, ErrorCode code);
  /// Each call in `calls` fails with its code; the others succeed.
  static std::shared_ptr<FaultSchedule> AtCalls(std::map<int64_t, ErrorCode> calls);
  /// Calls k, 2k, 3k, ... fail with `code`. \throws ValueError unless k >= 1.
  static std::shared_ptr<FaultSchedule> EveryKth(int64_t k, ErrorCode code);
  /// Each call fails with probability `rate`, with a code drawn uniformly from `codes`.
  /// Whether call n fails depends only on (seed, n): the same seed gives the same faults
  /// at the same call numbers, whatever happened in between.
  /// \throws ValueError unless 0 <= rate <= 1 and `codes` holds no kOk and is not empty.
  static std::shared_ptr<FaultSchedule> Random(double rate, std::vector<ErrorCode> codes,
                                               uint64_t seed);

  /// Counts one call and returns the code it must fail with, if any.
  std::optional<ErrorCode> Next();
  /// Counts one call and throws the OpError subclass the schedule names for it, if any,
  /// with the message "injected fault: <CODE> at <what> (call <n>)".
  void MaybeFail(const std::string& what);

  /// Stops (false) or resumes (true) failing; calls are counted either way. Lets a test
  /// check the result of a campaign without more faults.
  void set_enabled(bool enabled);

  /// Calls counted so far.
  int64_t calls() const;
  /// Faults injected so far.
  int64_t faults() const;
  /// Faults injected so far, by code.
  std::map<ErrorCode, int64_t> faults_by_code() const;

 private:
  // Counts one call; its number and the code it fails with, if any.
  std::pair<int64_t, std::optional<ErrorCode>> Count();

  Rule rule_;
  mutable std::mutex mu_;
  bool enabled_ = true;                          // Guarded by mu_.
  int64_t calls_ = 0;                            // Guarded by mu_.
  std::map<ErrorCode, int64_t> faults_by_code_;  // Guarded by mu_.
};

/// Where a FaultySession's fault strikes a Run.
enum class FaultTiming {
  kBeforeRun,  ///< The session below never runs: nothing happened.
  kAfterRun,   ///< The session below ran (a train op's update took place); the result is lost.
};

/// A session that fails Run with the error its schedule names; otherwise a pass-through.
class FaultySession : public WrappedSession {
 public:
  /// Wraps `inner`; each Run counts one call of `schedule`.
  FaultySession(std::unique_ptr<SessionInterface> inner, std::shared_ptr<FaultSchedule> schedule,
                FaultTiming timing = FaultTiming::kBeforeRun);

  /// \cond
  using WrappedSession::Run;
  /// \endcond

  /// Forwards the run, failing it before or after the inner run when the schedule says so.
  /// \throws the scheduled OpError; whatever the session below throws.
  std::vector<Tensor> Run(const std::vector<Output>& fetches, const FeedDict& feeds = {},
                          const std::vector<Operation*>& targets = {},
                          const RunOptions& options = {},
                          RunMetadata* run_metadata = nullptr) override;

 private:
  std::shared_ptr<FaultSchedule> schedule_;
  FaultTiming timing_;
};

/// A creator that fails some creations, and can make every session it creates faulty.
class FaultySessionCreator : public SessionCreator {
 public:
  /// Each CreateSession counts one call of `creation_faults` (null: never fails) and fails
  /// before calling `creator` when it says so. If `run_faults` is not null, each session
  /// made is wrapped in a FaultySession on that one shared schedule, with `timing`.
  FaultySessionCreator(std::shared_ptr<SessionCreator> creator,
                       std::shared_ptr<FaultSchedule> creation_faults,
                       std::shared_ptr<FaultSchedule> run_faults = nullptr,
                       FaultTiming timing = FaultTiming::kBeforeRun);

  /// A session from the wrapped creator, maybe made faulty.
  /// \throws the scheduled OpError (nothing was created); whatever the wrapped creator throws.
  std::unique_ptr<SessionInterface> CreateSession() override;

 private:
  std::shared_ptr<SessionCreator> creator_;
  std::shared_ptr<FaultSchedule> creation_faults_;
  std::shared_ptr<FaultSchedule> run_faults_;
  FaultTiming timing_;
};

/// A creator that counts how often it was asked and how often it delivered.
class CountingSessionCreator : public SessionCreator {
 public:
  /// Counts the calls into `creator`.
  explicit CountingSessionCreator(std::shared_ptr<SessionCreator> creator);

  /// The wrapped creator's session. \throws whatever it throws (counted as an attempt).
  std::unique_ptr<SessionInterface> CreateSession() override;

  /// CreateSession calls so far, failed ones included.
  int64_t attempts() const { return attempts_.load(); }
  /// Sessions made so far.
  int64_t created() const { return created_.load(); }

 private:
  std::shared_ptr<SessionCreator> creator_;
  std::atomic<int64_t> attempts_{0};
  std::atomic<int64_t> created_{0};
};

/// A creator that calls a function; for stacks a test builds by hand.
class FunctionSessionCreator : public SessionCreator {
 public:
  /// Each CreateSession returns `make()`. \pre `make` returns a non-null session or throws.
  explicit FunctionSessionCreator(std::function<std::unique_ptr<SessionInterface>()> make);
  /// `make()`.
  std::unique_ptr<SessionInterface> CreateSession() override;

 private:
  std::function<std::unique_ptr<SessionInterface>()> make_;
};

/// A hook that fails one of its methods when a schedule says so, and counts every call.
class FaultyHook : public SessionRunHook {
 public:
  /// The method that can fail.
  enum class Phase { kAfterCreateSession, kBeforeRun, kAfterRun };

  /// Each call of `phase` counts one call of `schedule` and fails when it says so.
  FaultyHook(Phase phase, std::shared_ptr<FaultSchedule> schedule);

  /// Counts; fails if `phase` is kAfterCreateSession and the schedule says so.
  void AfterCreateSession(SessionInterface& session, Coordinator* coord) override;
  /// Counts; fails if `phase` is kBeforeRun and the schedule says so.
  SessionRunArgs BeforeRun(SessionRunContext& run_context) override;
  /// Counts; fails if `phase` is kAfterRun and the schedule says so.
  void AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) override;

  /// AfterCreateSession calls so far, failed ones included.
  int64_t after_create_session_calls() const { return after_create_session_calls_; }
  /// BeforeRun calls so far, failed ones included.
  int64_t before_run_calls() const { return before_run_calls_; }
  /// AfterRun calls so far, failed ones included.
  int64_t after_run_calls() const { return after_run_calls_; }

 private:
  Phase phase_;
  std::shared_ptr<FaultSchedule> schedule_;
  int64_t after_create_session_calls_ = 0;
  int64_t before_run_calls_ = 0;
  int64_t after_run_calls_ = 0;
};

/// The OpError subclass of `code` with `message`, caught and ready to cross a thread: what a
/// failing thread hands Coordinator::RequestStop. \pre `code` is not kOk.
std::exception_ptr ErrorOf(ErrorCode code, const std::string& message);

}  // namespace mts

#endif  // MTS_TESTS_TESTING_FAULT_INJECTION_H_
