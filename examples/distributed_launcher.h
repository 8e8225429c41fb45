// distributed_launcher.h: starts a whole distributed job on 127.0.0.1 from one command, and
// makes sure none of it outlives the command.
//
//   examples/distributed_spirals  <-- without --job_name the program is this launcher: it
//                                     runs itself again as a ps, the chief and two workers
//
// The launcher picks free ports, starts the processes, and prints each one's output line by
// line, prefixed with the time since the start, so the interleaving of the tasks is visible.
// With --restart_ps it SIGKILLs the ps once the chief has saved a checkpoint past
// --restart_after_step and starts it again: the run then shows the recovery of chapter 07's
// timeline. With --trace it also shows the recovery and waiting lines the tasks log; the
// warnings they log are always shown.
//
// What it promises about the user's data and processes:
//   - A --checkpoint_dir the user gives is never removed or emptied: the chief restores from
//     it and saves into it, as TensorFlow would. Without one the launcher makes a new
//     directory (mkdtemp) and removes that one, and only that one, at the end.
//   - SIGTERM or SIGINT (Ctrl-C) stops the job in order: the workers first, after their
//     current step (the chief writes its final checkpoint), then the ps they need for it;
//     every child is reaped, then the launcher ends by the same signal. A second signal, or
//     workers still running after 30 seconds, kill the workers at once.
//   - If the launcher itself is killed (SIGKILL), every task gets SIGKILL from the kernel
//     (PR_SET_PDEATHSIG): no ps or worker is left running as an orphan.
//   - When the chief dies while other workers still train, it says that no checkpoint will
//     be written past the chief's last one.
//
// Thread safety: a program's main, single-threaded; it installs SIGTERM and SIGINT handlers
// for the time of the run.
#ifndef MTS_EXAMPLES_DISTRIBUTED_LAUNCHER_H_
#define MTS_EXAMPLES_DISTRIBUTED_LAUNCHER_H_

#include <cstdint>
#include <string>
#include <vector>

namespace mts {

/// What the launcher runs; the values are checked already (distributed_flags.h).
struct LauncherOptions {
  /// Workers in all, the chief (worker 0) included.
  int num_workers = 3;
  /// Where the chief saves and restores; never removed. "": a new directory made for the
  /// run, removed at its end.
  std::string checkpoint_dir;
  /// Given to every worker after its role, the cluster and the checkpoint directory: the
  /// training flags (--train_steps=600, ...).
  std::vector<std::string> worker_flags;
  /// SIGKILL the ps once, after the chief saved past restart_after_step, and restart it.
  bool restart_ps = false;
  /// See restart_ps.
  int64_t restart_after_step = 300;
  /// Also show the recovery and waiting lines the tasks log.
  bool trace = false;
  /// Kill the whole job after this long.
  double timeout_secs = 120;
};

/// Runs a ps and `options.num_workers` workers as child processes of `self` (this program),
/// relaying their output. \returns 0 when every worker finished cleanly (and, with
/// restart_ps, the ps was restarted), 1 otherwise. On SIGTERM or SIGINT it stops the job
/// as the file comment says and then ends the process by that signal; it does not return.
/// \throws std::runtime_error if no free port, pipe, process or directory can be had (every
///   child started so far is killed and reaped first).
int RunLauncher(const std::string& self, const LauncherOptions& options);

}  // namespace mts

#endif  // MTS_EXAMPLES_DISTRIBUTED_LAUNCHER_H_
