// distributed_launcher.h: starts a whole distributed job on 127.0.0.1 from one command.
//
//   examples/distributed_spirals  <-- without --job_name the program is this launcher: it
//                                     runs itself again as a ps, the chief and two workers
//
// The launcher picks free ports, writes the cluster flag every task gets, starts the
// processes, and prints each one's output line by line, prefixed with the time since the
// start, so the interleaving of the tasks is visible. With --restart_ps it SIGKILLs the ps
// once the chief has saved a checkpoint past --restart_after_step and starts it again: the
// run then shows the recovery of chapter 07's timeline. With --trace it also shows the
// recovery and waiting lines the tasks log (what RecoverableSession and SessionManager say).
//
// Thread safety: a program's main, single-threaded.
#ifndef MTS_EXAMPLES_DISTRIBUTED_LAUNCHER_H_
#define MTS_EXAMPLES_DISTRIBUTED_LAUNCHER_H_

#include <map>
#include <string>

namespace mts {

/// Runs a ps, a chief and `--num_workers - 1` more workers (default 3 workers in all) as
/// child processes of `self` (this program), relaying their output; returns 0 when every
/// worker finished cleanly. Flags: --train_steps, --save_steps, --log_every,
/// --step_delay_ms, --num_workers, --restart_ps, --restart_after_step, --trace,
/// --timeout_secs.
int RunLauncher(const std::string& self, const std::map<std::string, std::string>& flags);

}  // namespace mts

#endif  // MTS_EXAMPLES_DISTRIBUTED_LAUNCHER_H_
