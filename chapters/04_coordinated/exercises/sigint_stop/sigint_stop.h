// sigint_stop.h: chapter 04's exercise: Ctrl-C asks the Coordinator to stop, so training
// ends the way it ends on any other stop: threads joined, session closed, checkpoint saved.
//
//   CoordinatedSession   its Coordinator is the one a signal stops
//     HookedSession
//       ...
//   signal watcher       <-- this exercise: a thread beside the stack, woken by a signal
//
// By default SIGINT kills the process on the spot: queue runners die mid-enqueue, the last
// steps since the previous checkpoint are lost, event files may end torn. A long training
// job wants Ctrl-C (or a cluster manager's signal) to mean "stop soon and cleanly", which
// is exactly what a Coordinator stop means.
//
// The difficulty is where a signal handler runs: on whatever thread the kernel picked, in
// the middle of whatever that thread was doing, maybe holding the very mutex that
// RequestStop needs. A handler may only do async-signal-safe things (write(2), reading and
// storing lock-free atomics), so it cannot call RequestStop itself. The classic way out is
// the self-pipe: the handler writes one byte into a pipe, and an ordinary thread that
// waits on the other end of the pipe does the real work.
//
// Lifecycle:
//   1. InstallStopOnSignal(coord, SIGINT): a pipe, a watcher thread reading it, and a
//      handler for the signal that writes a byte into it; the old handler is kept.
//   2. The signal arrives (any number of times): the watcher calls coord.RequestStop().
//   3. The guard is destroyed: the old handler is back, the watcher thread has ended, the
//      pipe is closed.
//
// Thread safety: install and destroy guards from one thread; the signal may arrive on any.
//
// Example:
//   Coordinator coord;
//   StopOnSignal stop_on_ctrl_c = InstallStopOnSignal(coord, SIGINT);
//   while (!coord.ShouldStop()) TrainOneStep();  // Ctrl-C ends the loop after this step.
//
// TensorFlow has no such helper; Python's default SIGINT handler raises KeyboardInterrupt
// in the main thread, which a MonitoredSession's `with` block turns into a close.
#ifndef MTS_CHAPTERS_04_COORDINATED_EXERCISES_SIGINT_STOP_SIGINT_STOP_H_
#define MTS_CHAPTERS_04_COORDINATED_EXERCISES_SIGINT_STOP_SIGINT_STOP_H_

#include <csignal>
#include <memory>

#include "src/04_coordinated/coordinator.h"

namespace mts {

// [mts:stop-on-signal-api]
/// While alive, makes a signal request a stop on a Coordinator. Move-only.
class StopOnSignal {
 public:
  /// A guard that watches nothing.
  StopOnSignal();
  /// Gives the signal back its old handler and ends the watcher thread. Never throws.
  ~StopOnSignal();
  /// Moving hands the watching over; the moved-from guard watches nothing.
  StopOnSignal(StopOnSignal&& other) noexcept;
  /// Stops watching what this guard watched, then takes over `other`'s watching.
  StopOnSignal& operator=(StopOnSignal&& other) noexcept;

 private:
  friend StopOnSignal InstallStopOnSignal(Coordinator& coord, int signum);
  // Everything one watched signal needs: defined in the .cc; its destructor undoes the
  // installation.
  struct State;
  explicit StopOnSignal(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

/// Until the returned guard is destroyed, each arrival of `signum` makes a watcher thread
/// call `coord.RequestStop()`. The signal's handler only writes a byte into a pipe (it is
/// async-signal-safe, and keeps errno as it found it); the watcher thread reads the pipe.
/// \pre `coord` outlives the guard.
/// \throws ValueError if `signum` cannot be caught (not a signal number, SIGKILL, SIGSTOP).
/// \throws RuntimeError if a live guard already watches `signum`, or if the pipe, the
///   thread or the handler cannot be set up; nothing is left installed then.
[[nodiscard]] StopOnSignal InstallStopOnSignal(Coordinator& coord, int signum = SIGINT);
// [mts:stop-on-signal-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_04_COORDINATED_EXERCISES_SIGINT_STOP_SIGINT_STOP_H_
