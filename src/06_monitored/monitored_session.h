// monitored_session.h: the whole stack in one object (TensorFlow's MonitoredSession and
// SingularMonitoredSession).
//
//   MonitoredSession       <-- this file: assembles the layers below, once, in this order
//     RecoverableSession   (MonitoredSession only; SingularMonitoredSession has no recovery)
//       CoordinatedSession
//         HookedSession
//           Chief / Worker the SessionCreator given (default: ChiefSessionCreator)
//             Session
//
// Lifecycle:
//   1. Construction: every hook's Begin(), then the first stack (the creator's session, the
//      queue runners, every hook's AfterCreateSession); preemption errors are retried, any
//      other error leaves the constructor, with no hook's End.
//   2. Run / RunStepFn: one step through the hooks, recovered on preemption errors.
//   3. ShouldStop: a hook, the coordinator, a thread's error or Close says the loop is over.
//   4. Close: on a clean close, every hook's End with the raw session still open; then the
//      stack is closed. A second Close, or Run after Close, raises RuntimeError. The
//      destructor closes a session still open as after an error (no End), silently.
// WithMonitoredSession (monitored_session_scope.h) decides whether an end was clean.
//
// Thread safety: one thread constructs, runs and closes it (hooks are called from that
// thread); the coordinated layer guards its own threads.
//
// TensorFlow: _MonitoredSession, MonitoredSession, SingularMonitoredSession
// (tensorflow/python/training/monitored_session.py).
#ifndef MTS_SRC_06_MONITORED_MONITORED_SESSION_H_
#define MTS_SRC_06_MONITORED_MONITORED_SESSION_H_

#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "src/01_session/graph.h"
#include "src/01_session/session_interface.h"
#include "src/02_chief_worker/runs_hooks.h"
#include "src/02_chief_worker/scaffold.h"
#include "src/02_chief_worker/session_creator.h"
#include "src/03_hooked/session_run_hook.h"
#include "src/03_hooked/wrapped_session.h"
#include "src/04_coordinated/coordinated_session.h"
#include "src/04_coordinated/runs_own_queue_runners.h"
#include "src/05_recoverable/recoverable_session.h"
#include "src/06_monitored/step_context.h"
#include "src/platform/clock.h"

namespace mts {

/// How a MonitoredSession stops its threads and recovers.
struct MonitoredSessionOptions {
  /// How long Close waits for the coordinator's threads before leaving stragglers behind.
  double stop_grace_period_secs = 120;
  /// How the recoverable layer retries creations (default: at once, forever, as TensorFlow).
  /// SingularMonitoredSession does not recover and ignores it.
  RecoveryOptions recovery;
  /// The clock of the coordinator and of recovery backoffs; null: RealClock().
  Clock* clock = nullptr;
};

/// A training session with hooks, input threads, recovery, and a clean close.
class MonitoredSession : public SessionInterface, public RunsOwnQueueRunners, public RunsHooks {
 public:
  /// The hooks of a session, called in this order.
  using Hooks = std::vector<std::shared_ptr<SessionRunHook>>;

  // [mts:lab-contract-monitored-construct]
  /// Calls every hook's Begin, then creates the stack with `session_creator` (null: a
  /// ChiefSessionCreator with a default Scaffold), recovering from preemption errors.
  /// \throws OpError as Begin or the creation throws it (other than a recovered preemption
  ///   error); RuntimeError as the scaffold or SessionManager report a graph that cannot be
  ///   prepared. No hook's End is called and the graph stays finalized.
  explicit MonitoredSession(std::shared_ptr<SessionCreator> session_creator = nullptr,
                            Hooks hooks = {}, MonitoredSessionOptions options = {});
  // [mts:lab-contract-monitored-construct-end]
  /// Closes the stack if still open, as after an error (no hook's End); never throws.
  ~MonitoredSession() override;
  MonitoredSession(const MonitoredSession&) = delete;
  MonitoredSession& operator=(const MonitoredSession&) = delete;

  /// \cond
  using SessionInterface::Run;
  /// \endcond

  /// One step through the whole stack: hooks' BeforeRun, the raw run, hooks' AfterRun;
  /// run again from the start on a new stack after a preemption error.
  /// \throws RuntimeError "Run called on a closed MonitoredSession; ..." after Close.
  /// \throws OpError as the run throws it; see HookedSession::Run for the hooks' errors.
  std::vector<Tensor> Run(const std::vector<Output>& fetches, const FeedDict& feeds = {},
                          const std::vector<Operation*>& targets = {},
                          const RunOptions& options = {},
                          RunMetadata* run_metadata = nullptr) override;

  /// Calls `step_fn(StepContext&)` once and returns what it returns. The context gives the
  /// raw session and RunWithHooks. A preemption error inside `step_fn` recovers and calls
  /// it again from the start, with the new raw session.
  /// \throws StopIteration when `step_fn` calls StepContext::RequestStop (ShouldStop
  ///   stays false: only WithMonitoredSession turns it into a clean close).
  /// \throws RuntimeError "Run called on a closed MonitoredSession; ..." after Close.
  template <typename StepFn>
  std::invoke_result_t<StepFn&, StepContext&> RunStepFn(StepFn&& step_fn) {
    using Result = std::invoke_result_t<StepFn&, StepContext&>;
    if constexpr (std::is_void_v<Result>) {
      RunStepFnOnce([&](StepContext& context) { step_fn(context); });
    } else {
      std::optional<Result> result;  // Reset by each retry, so only the last call counts.
      RunStepFnOnce([&](StepContext& context) { result.emplace(step_fn(context)); });
      return std::move(*result);
    }
  }

  /// True once the loop should end: a hook requested a stop, the coordinator was asked to
  /// stop, a thread recorded an error (raised again by Close), or the session is closed.
  bool ShouldStop();

  // [mts:lab-contract-monitored-close]
  /// The clean close: every hook's End with the raw session still open, then the stack's
  /// Close. A hook whose End raises does not stop the others' End (beyond TensorFlow, which
  /// stops at the first): the error is logged at once and the first one is raised after
  /// every End has run and the stack is closed. The session counts as closed even if
  /// either raises; an error of the stack's Close replaces one of End.
  /// \throws RuntimeError "Session is already closed. Close it once: ..." on a second call
  ///   (End is not run again); otherwise what End or the stack's Close throws (e.g. a
  ///   thread's error).
  void Close() override;

  /// The close after an error (what Python's `with` does when its body raised): no hook's
  /// End, then the stack's Close.
  /// \throws RuntimeError "Session is already closed. ..." if already closed; otherwise what
  ///   the stack's Close throws.
  void CloseAfterError();
  // [mts:lab-contract-monitored-close-end]

  /// The graph the session runs, or nullptr once closed.
  Graph* graph() const override;

  /// The top layer of the stack (a RecoverableSession, or a CoordinatedSession without
  /// recovery), or nullptr once closed. Each layer's WrappedSession::inner() is the next one
  /// down, ending at the raw session: for code that inspects the stack, as chapter 00's
  /// program does. TensorFlow keeps it in the private attribute `_sess`.
  const WrappedSession* top_layer() const { return sess_.get(); }

 protected:
  /// The shared constructor: `should_recover` puts a RecoverableSession on top.
  MonitoredSession(std::shared_ptr<SessionCreator> session_creator, Hooks hooks,
                   const MonitoredSessionOptions& options, bool should_recover);

  /// The raw session of the current stack, or nullptr once closed.
  SessionInterface* current_raw_session() const;

 private:
  void RunStepFnOnce(const std::function<void(StepContext&)>& step_fn);
  void CloseInternal(bool run_end_hooks);
  // Runs every hook's End; returns the first error raised, after logging each.
  std::exception_ptr RunEndHooks();
  void ThrowIfClosed() const;

  Graph* graph_;  // The default graph at construction: the one hooks and scaffold grow.
  bool graph_was_finalized_;
  Hooks hooks_;
  std::shared_ptr<CoordinatedSessionCreator> coordinated_creator_;
  std::unique_ptr<WrappedSession> sess_;       // The top of the stack; null once closed.
  RecoverableSession* recoverable_ = nullptr;  // sess_ when recovering, else null.
};

// [mts:singular-monitored-session-options]
/// The arguments of SingularMonitoredSession, named and defaulted as in TensorFlow (all but
/// `config`: mts has no ConfigProto).
struct SingularMonitoredSessionOptions {
  /// The hooks, called in this order.
  MonitoredSession::Hooks hooks;
  /// The graph's init, ready and save pieces; null: a default Scaffold.
  std::shared_ptr<Scaffold> scaffold;
  /// Where the session runs: "" for this process, or a "grpc://host:port" target.
  std::string master;
  /// Restore the newest checkpoint found here; "" for none.
  std::string checkpoint_dir;
  /// How long Close waits for the coordinator's threads.
  double stop_grace_period_secs = 120;
  /// Restore this checkpoint instead; give it or checkpoint_dir, not both.
  std::string checkpoint_filename_with_path;
  /// Beyond TensorFlow: the clock of the coordinator and the session manager; null:
  /// RealClock().
  Clock* clock = nullptr;
};
// [mts:singular-monitored-session-options-end]

/// A MonitoredSession without recovery, around a ChiefSessionCreator it builds itself, that
/// also exposes the raw session (for a single machine, or for code that needs the session).
class SingularMonitoredSession : public MonitoredSession {
 public:
  /// Calls the hooks' Begin, then creates a session as a ChiefSessionCreator given the
  /// options' `scaffold`, `master`, `checkpoint_dir` and `checkpoint_filename_with_path`
  /// does.
  /// \throws OpError as Begin or the creation throws it: preemption errors included.
  explicit SingularMonitoredSession(SingularMonitoredSessionOptions options = {});

  /// The raw session (no hooks, no coordinator), or nullptr once closed.
  SessionInterface* raw_session() const { return current_raw_session(); }
};

}  // namespace mts

#endif  // MTS_SRC_06_MONITORED_MONITORED_SESSION_H_
