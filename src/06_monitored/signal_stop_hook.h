// signal_stop_hook.h: turns SIGTERM and SIGINT into a clean stop after the current step, so
// the final checkpoint is written instead of lost.
//
//   MonitoredTrainingSession  puts this hook first when options.stop_on_signals is true
//     MonitoredSession        a stop requested by a hook ends the loop; Close runs hooks' End
//       RecoverableSession
//         CoordinatedSession
//           HookedSession     <-- calls this hook around every run; it requests the stop
//
// The first signal only sets a flag; around the current step the hook logs it once and
// requests a stop, and the clean close writes the final checkpoint. A second signal puts
// back the disposition that was there before and raises the signal again. While the
// handlers are installed SIGPIPE and SIGXFSZ are ignored, so such writes fail with EPIPE or
// EFBIG instead of killing the process; RequestStopForClosedStdout turns an EPIPE on
// standard output into the same stop. The handlers are shared by every live hook: the
// first Begin installs them (a signal ignored at that moment stays ignored), the last
// destructor puts the previous dispositions back.
//
// So does the first signal while no session exists yet (from Begin to the first
// AfterCreateSession): nothing was trained, so the task says so on stderr and ends with the
// signal's usual status. Chapter 06 says why a flag, and why the handlers are shared.
//
// Lifecycle: construct; Begin installs the handlers; AfterCreateSession counts the session
// as existing; BeforeRun and AfterRun request a stop once a signal has come; the destructor
// uninstalls.
//
// Thread safety: the hook is called from the training thread. The signal may arrive on any
// thread: the handler only sets a lock-free atomic the hook reads.
//
// Example:
//   options.checkpoint_dir = "/tmp/run";  // stop_on_signals is true by default
//   auto session = MonitoredTrainingSession(options);
//
// TensorFlow: none (TF1 dies on the signal).
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
