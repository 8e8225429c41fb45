// signal_stop_hook.h: SIGTERM and SIGINT end a training loop cleanly, with a final checkpoint
// (beyond TensorFlow).
//
//   MonitoredTrainingSession  puts this hook first when options.stop_on_signals is true
//     MonitoredSession        a stop requested by a hook ends the loop; Close runs hooks' End
//       RecoverableSession
//         CoordinatedSession
//           HookedSession     <-- calls this hook around every run; it requests the stop
//             Chief / Worker
//               Session
//
// A cluster scheduler preempts a job with SIGTERM, and a person at a terminal presses
// Ctrl-C (SIGINT). Either kills a TensorFlow 1 training process on the spot: everything
// learned since the last periodic checkpoint is lost. With this hook the first such signal
// only sets a flag; the hook sees it around the current step and asks the loop to stop, so
// `while (!session.ShouldStop())` ends after that step, the clean close calls every hook's
// End, and CheckpointSaverHook writes the final checkpoint there. The hook logs
//
//   Received SIGTERM: stopping after this step; the final checkpoint is written at close.
//
// or, in a session that saves no checkpoints (a worker, a chief without checkpoint_dir),
// "...stopping after this step; this task writes no checkpoint." rather than a promise that
// would not be kept.
//
// While the handlers are installed, SIGPIPE and SIGXFSZ are ignored, as Python ignores
// them for every TensorFlow 1 program: a write to a closed pipe (`train | head -3`) or past
// the file-size limit (`ulimit -f`) then fails with EPIPE or EFBIG, which the writer
// reports, instead of killing the process without a final checkpoint. A program that prints
// can turn EPIPE on its standard output into a stop request (RequestStopForClosedStdout):
// the loop ends after the step as on SIGTERM, and the log says why.
//
// A second signal means "now": the handler puts back the disposition that was there before
// (for SIGTERM usually the default, which ends the process) and raises the signal again.
// So does the first one while no session exists yet (from Begin to the hook's first
// AfterCreateSession): the task is still creating its session, perhaps waiting for a
// parameter server that is not there or a chief that never comes, nothing has been
// trained, and a stop "after this step" would wait as long as the wait does. The handler
// says so on stderr and the process ends with the signal's usual status.
//
// Why a flag: a signal handler may interrupt any instruction of any thread, even one
// holding the allocator's lock, so it may only do async-signal-safe things. The handler
// here touches nothing but a lock-free std::atomic<int> and calls sigaction and raise,
// both async-signal-safe. Everything else (logging, the stop request) happens later, in
// the hook, on the training thread.
//
// Signal dispositions belong to the whole process, so the handlers are shared: the first
// hook to Begin installs them (remembering the previous dispositions), and the last hook
// destroyed puts those back and forgets the signals received. A signal that was ignored
// when the handlers were installed (SIG_IGN, as for a background job's SIGINT) stays
// ignored: the parent chose that. Every live hook reacts to a signal received since the
// handlers were installed.
//
// Lifecycle: construct; Begin installs the handlers (once per hook); AfterCreateSession
// counts the session as existing; BeforeRun and AfterRun request a stop once a signal has
// been received (logging it once); the destructor uninstalls.
//
// Thread safety: the hook is called from the training thread. The signal may arrive on any
// thread: the handler only sets the atomic flag the hook reads.
//
// Example:
//   MonitoredTrainingSessionOptions options;
//   options.checkpoint_dir = "/tmp/run";  // stop_on_signals is true by default
//   auto session = MonitoredTrainingSession(options);
//   while (!session->ShouldStop()) session->Run({}, {}, {train_op});
//   session->Close();  // after SIGTERM: the final checkpoint is written here
//
// TensorFlow: none. TF1 leaves signals alone (the process dies); mts adds what
// preemptible jobs otherwise write by hand.
#ifndef MTS_SRC_06_MONITORED_SIGNAL_STOP_HOOK_H_
#define MTS_SRC_06_MONITORED_SIGNAL_STOP_HOOK_H_

#include "src/03_hooked/session_run_hook.h"

namespace mts {

/// Requests a stop after the step during which SIGTERM or SIGINT arrived.
class SignalStopHook : public SessionRunHook {
 public:
  /// A hook that does nothing until Begin installs the handlers. `final_checkpoint` says
  /// whether a hook of the same session writes a checkpoint at close (a CheckpointSaverHook),
  /// so that the log line promises one only when it will be written.
  explicit SignalStopHook(bool final_checkpoint = false) : final_checkpoint_(final_checkpoint) {}
  /// Uninstalls the handlers if this hook installed them; the last hook to go puts back the
  /// previous dispositions. Never throws.
  ~SignalStopHook() override;
  SignalStopHook(const SignalStopHook&) = delete;
  SignalStopHook& operator=(const SignalStopHook&) = delete;

  /// Installs the SIGTERM and SIGINT handlers (the first hook alive does; later ones share
  /// them). A second Begin of the same hook does nothing.
  /// \throws RuntimeError "sigaction failed for SIGTERM: ..." if the system refuses.
  void Begin() override;
  /// From the first call on, a signal stops after the step; before it (the session being
  /// created), a signal ends the process at once, saying why.
  void AfterCreateSession(SessionInterface& session, Coordinator* coord) override;
  /// Requests a stop if a signal was received before this run.
  SessionRunArgs BeforeRun(SessionRunContext& run_context) override;
  /// Requests a stop if a signal was received before or during this run.
  void AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) override;

  /// The first signal received since the handlers were installed (SIGTERM or SIGINT), or 0.
  static int ReceivedSignal();

  /// Asks every live hook for the same clean stop as a first SIGTERM, because a write to
  /// standard output failed with EPIPE: its reader (`head`, `less`) has gone. A program
  /// calls it where it prints (examples/example_output.h does). The request stands until
  /// the last hook is destroyed. Async-signal-safe.
  static void RequestStopForClosedStdout();

 private:
  void StopIfSignalled(SessionRunContext& run_context);

  const bool final_checkpoint_;  // A CheckpointSaverHook of the session saves at close.
  bool installed_ = false;       // This hook holds one reference to the shared handlers.
  bool live_ = false;            // Its session exists: counted in the live sessions.
  bool logged_ = false;          // The stop was logged (once per hook).
};

}  // namespace mts

#endif  // MTS_SRC_06_MONITORED_SIGNAL_STOP_HOOK_H_
