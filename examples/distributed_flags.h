// distributed_flags.h: the command line of distributed_spirals, read and checked before
// anything runs.
//
//   examples/distributed_spirals  one program, three roles picked by --job_name
//     distributed_flags.h  <-- this file: its absl flags, every value checked
//     distributed_launcher.h      the launcher gets the checked values, and passes them on
//                                 to the tasks it starts
//
// Every bad value ends the program at once, with status 2 and one line naming the flag and
// the values it accepts:
//
//   distributed_spirals: --log_every=0: expected a whole number from 1 to 1000000000
//
// A value that is not a number at all gets the same answer. absl's own answers stay as
// absl gives them: --help prints the usage and exits with status 1 (absl-py, TensorFlow's
// flags library, does the same), and so does an unknown flag, with absl's message.
//
// Thread safety: call once, from main, before starting threads.
#ifndef MTS_EXAMPLES_DISTRIBUTED_FLAGS_H_
#define MTS_EXAMPLES_DISTRIBUTED_FLAGS_H_

#include <cstdint>
#include <string>

#include "examples/distributed_launcher.h"
#include "src/07_distributed/cluster_spec.h"

namespace mts {

/// The checked command line of distributed_spirals.
struct DistributedFlags {
  /// "" for the launcher, or the task's job: "ps" or "worker".
  std::string job_name;
  /// The task's index in its job (worker 0 is the chief); 0 for the launcher.
  int task_index = 0;
  /// A task's cluster; empty for the launcher, which makes its own on free ports.
  ClusterSpec cluster;
  /// Where the chief restores from and saves to; "" for none (a task) or for a new
  /// directory made for the run (the launcher).
  std::string checkpoint_dir;
  /// Train until the global step reaches this.
  int64_t train_steps = 600;
  /// The chief saves a checkpoint every this many steps (and at the end).
  int64_t save_steps = 100;
  /// A worker prints its progress every this many of its own steps.
  int64_t log_every = 100;
  /// A worker pauses this long after each step (to slow a demo down).
  int step_delay_ms = 0;
  /// How long a worker waits for the chief's model before giving up.
  double max_wait_secs = 120;
  /// How often a waiting worker checks the model again.
  double recovery_wait_secs = 0.5;
  /// The deadline of each RPC to the ps (ServerOptions::rpc_timeout_secs).
  double rpc_timeout_secs = 5;
  /// A chief initialises over a model the ps holds for someone else
  /// (MonitoredTrainingSessionOptions::reinitialize_live_model).
  bool reinitialize_live_model = false;
  /// Train with SyncReplicasOptimizer (every worker, the chief with its hook).
  bool sync_replicas = false;
  /// With sync_replicas: the gradients each update averages; 0: every worker.
  int replicas_to_aggregate = 0;
  /// The launcher's options, the flags every worker gets among them; unused by a task.
  LauncherOptions launcher;
};

/// Parses argv with absl and checks every value. On a bad value prints
/// "distributed_spirals: --FLAG=VALUE: expected ..." to stderr and exits with status 2;
/// --help and an unknown flag end the program as absl::ParseCommandLine does (status 1).
DistributedFlags ParseDistributedFlags(int argc, char** argv);

}  // namespace mts

#endif  // MTS_EXAMPLES_DISTRIBUTED_FLAGS_H_
