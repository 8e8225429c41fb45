#include "examples/distributed_flags.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "src/platform/errors.h"

namespace {

// A number as it was typed on the command line, checked later by WholeNumber or Seconds. A
// flag of type int64_t would have absl::ParseCommandLine refuse "--train_steps=abc" by
// itself, but with status 1 and no word on the values accepted; kept as text, a value that
// is not a number and one out of range get the same answer: the flag, its range, status 2.
// `given` tells a default from a value typed on the command line (the launcher's defaults
// change with --restart_ps).
struct Number {
  std::string text;
  bool given = false;
};

// absl's hooks for a flag type: store whatever was typed; print it back for --help.
bool AbslParseFlag(absl::string_view text, Number* number, std::string* /*error*/) {
  number->text = std::string(text);
  number->given = true;
  return true;
}

std::string AbslUnparseFlag(const Number& number) { return number.text; }

}  // namespace

ABSL_FLAG(std::string, job_name, "",
          "ps or worker: run as that task of --cluster. Without it the program is the "
          "launcher, which starts a ps and --num_workers workers on 127.0.0.1.");
ABSL_FLAG(Number, task_index, Number{"0"}, "The task's index in its job; worker 0 is the chief.");
ABSL_FLAG(std::string, cluster, "",
          "A task's cluster, as ps=HOST:PORT;worker=HOST:PORT,HOST:PORT.");
ABSL_FLAG(std::string, cluster_file, "",
          "A task's cluster from a JSON file: {\"ps\": [...], \"worker\": [...]}.");
ABSL_FLAG(std::string, checkpoint_dir, "",
          "Where the chief saves checkpoints and restores from; it is never removed or "
          "emptied. Without it, the launcher makes a new directory for the run and removes "
          "it at the end.");
ABSL_FLAG(Number, train_steps, Number{"600"},
          "Train until the global step reaches this (1200 by default with --restart_ps).");
ABSL_FLAG(Number, save_steps, Number{"100"},
          "The chief saves a checkpoint every this many global steps, and at the end.");
ABSL_FLAG(Number, log_every, Number{"100"},
          "A worker prints its progress every this many of its own steps.");
ABSL_FLAG(Number, step_delay_ms, Number{"0"},
          "A worker pauses this long after each step (5 by default with --restart_ps).");
ABSL_FLAG(Number, max_wait_secs, Number{"120"},
          "How long a worker waits for the chief's model before giving up.");
ABSL_FLAG(Number, recovery_wait_secs, Number{"0.5"},
          "How often a waiting worker checks the model again (TensorFlow: 30).");
ABSL_FLAG(Number, rpc_timeout_secs, Number{"5"},
          "How long a task waits for each answer of the ps before it makes its session again; "
          "a ps slower than this costs time, never training (the chief restores only when the "
          "ps restarted).");
ABSL_FLAG(bool, reinitialize_live_model, false,
          "A chief only: initialise the model even if the ps already holds one this chief did "
          "not write (another job's, or this job's before the chief restarted without its "
          "--checkpoint_dir), throwing that model away. Without it such a chief refuses.");
ABSL_FLAG(bool, sync_replicas, false,
          "Every worker trains with SyncReplicasOptimizer: each update averages the gradients "
          "of --replicas_to_aggregate workers, computed from the same variables.");
ABSL_FLAG(Number, replicas_to_aggregate, Number{"0"},
          "With --sync_replicas: the gradients each update averages; 0 means every worker. "
          "Fewer than the workers leaves the slowest as backups, their gradients dropped.");
ABSL_FLAG(Number, num_workers, Number{"3"}, "Launcher: workers in all, the chief included.");
ABSL_FLAG(bool, restart_ps, false,
          "Launcher: SIGKILL the ps once the chief saved past --restart_after_step, then "
          "start it again.");
ABSL_FLAG(Number, restart_after_step, Number{"300"},
          "Launcher: the step past which --restart_ps kills the ps.");
ABSL_FLAG(bool, trace, false, "Launcher: also show the recovery and waiting lines the tasks log.");
ABSL_FLAG(Number, timeout_secs, Number{"120"}, "Launcher: kill the whole job after this long.");

namespace mts {
namespace {

constexpr int64_t kManySteps = 1000000000;  // A bound no run on one machine comes near.
constexpr double kDaySecs = 86400;

// Ends the program as a usage error: one line naming the flag (and its value, if it has
// one), then status 2.
[[noreturn]] void Refuse(const std::string& flag, const std::optional<std::string>& value,
                         const std::string& expected) {
  const std::string given = "--" + flag + (value ? "=" + *value : "");
  std::fprintf(stderr, "distributed_spirals: %s: %s\n", given.c_str(), expected.c_str());
  std::exit(2);
}

std::string NameOf(const absl::Flag<Number>& flag) {
  return std::string(absl::GetFlagReflectionHandle(flag).Name());
}

// The value of a whole-number flag in [min, max], or the program ends naming the range.
// `why` (may be empty) says where the range comes from.
int64_t WholeNumber(const absl::Flag<Number>& flag, int64_t min, int64_t max,
                    const std::string& why = "") {
  const std::string text = absl::GetFlag(flag).text;
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    Refuse(NameOf(flag), text,
           "expected a whole number from " + std::to_string(min) + " to " + std::to_string(max) +
               (why.empty() ? "" : " (" + why + ")"));
  }
  return value;
}

// The value of a flag counting seconds, from 0.001 to a day, or the program ends.
double Seconds(const absl::Flag<Number>& flag) {
  const std::string text = absl::GetFlag(flag).text;
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  // Written so that NaN fails too.
  if (error != std::errc() || end != text.data() + text.size() ||
      !(value >= 0.001 && value <= kDaySecs)) {
    Refuse(NameOf(flag), text, "expected a number of seconds from 0.001 to 86400");
  }
  return value;
}

std::string Text(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

// A task's cluster, from --cluster or --cluster_file (exactly one).
ClusterSpec TaskCluster() {
  const std::string flag = absl::GetFlag(FLAGS_cluster);
  const std::string file = absl::GetFlag(FLAGS_cluster_file);
  if (flag.empty() == file.empty()) {
    Refuse("cluster", flag.empty() ? std::nullopt : std::optional<std::string>(flag),
           "a task needs its cluster from exactly one of --cluster (e.g. "
           "--cluster='ps=127.0.0.1:2222;worker=127.0.0.1:2223') and --cluster_file");
  }
  try {
    return flag.empty() ? ClusterSpec::FromJsonFile(file) : ClusterSpec::FromFlag(flag);
  } catch (const OpError& e) {  // The file is missing, unreadable or not a regular file.
    Refuse("cluster_file", file, e.what());
  } catch (const ValueError& e) {
    Refuse(flag.empty() ? "cluster_file" : "cluster", flag.empty() ? file : flag, e.what());
  }
}

// The launcher makes its own cluster: a task's flags given to it would be ignored silently.
void RefuseTaskFlagsForTheLauncher() {
  const char* only_for_a_task =
      "only a task (--job_name=ps or worker) takes it; the launcher "
      "makes its own cluster on free ports of 127.0.0.1";
  if (!absl::GetFlag(FLAGS_cluster).empty()) {
    Refuse("cluster", absl::GetFlag(FLAGS_cluster), only_for_a_task);
  }
  if (!absl::GetFlag(FLAGS_cluster_file).empty()) {
    Refuse("cluster_file", absl::GetFlag(FLAGS_cluster_file), only_for_a_task);
  }
  if (absl::GetFlag(FLAGS_task_index).given) {
    Refuse("task_index", absl::GetFlag(FLAGS_task_index).text, only_for_a_task);
  }
  if (absl::GetFlag(FLAGS_reinitialize_live_model)) {
    Refuse("reinitialize_live_model", std::nullopt,
           "only a chief run by hand takes it; the launcher's chief starts on a ps of its own");
  }
}

}  // namespace

DistributedFlags ParseDistributedFlags(int argc, char** argv) {
  // --help lists the flags of the file named like the program; these live here.
  absl::FlagsUsageConfig usage;
  usage.contains_help_flags = [](absl::string_view file) {
    return file.find("examples/distributed_flags.cc") != absl::string_view::npos;
  };
  absl::SetFlagsUsageConfig(usage);
  absl::SetProgramUsageMessage(
      "Trains the spirals MLP as a distributed job on 127.0.0.1. Without --job_name it is the "
      "launcher: it starts this program again as a parameter server, the chief and the other "
      "workers, and relays what they print (the flags marked Launcher are its own). With "
      "--job_name=ps or worker and --cluster it is one task of such a job.");
  const std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() > 1) {
    std::fprintf(stderr, "distributed_spirals: unexpected argument '%s': flags are --name=value\n",
                 rest[1]);
    std::exit(2);
  }

  DistributedFlags flags;
  flags.job_name = absl::GetFlag(FLAGS_job_name);
  if (flags.job_name != "" && flags.job_name != "ps" && flags.job_name != "worker") {
    Refuse("job_name", flags.job_name, "expected ps or worker (or no --job_name: the launcher)");
  }
  const bool restart_ps = absl::GetFlag(FLAGS_restart_ps);
  flags.checkpoint_dir = absl::GetFlag(FLAGS_checkpoint_dir);
  flags.train_steps = restart_ps && !absl::GetFlag(FLAGS_train_steps).given
                          ? 1200
                          : WholeNumber(FLAGS_train_steps, 1, kManySteps);
  flags.save_steps = WholeNumber(FLAGS_save_steps, 1, kManySteps);
  flags.log_every = WholeNumber(FLAGS_log_every, 1, kManySteps);
  flags.step_delay_ms = restart_ps && !absl::GetFlag(FLAGS_step_delay_ms).given
                            ? 5
                            : static_cast<int>(WholeNumber(FLAGS_step_delay_ms, 0, 60000));
  flags.max_wait_secs = Seconds(FLAGS_max_wait_secs);
  flags.recovery_wait_secs = Seconds(FLAGS_recovery_wait_secs);
  flags.rpc_timeout_secs = Seconds(FLAGS_rpc_timeout_secs);
  flags.reinitialize_live_model = absl::GetFlag(FLAGS_reinitialize_live_model);
  flags.sync_replicas = absl::GetFlag(FLAGS_sync_replicas);
  flags.replicas_to_aggregate = static_cast<int>(WholeNumber(FLAGS_replicas_to_aggregate, 0, 16));
  if (flags.replicas_to_aggregate > 0 && !flags.sync_replicas) {
    Refuse("replicas_to_aggregate", absl::GetFlag(FLAGS_replicas_to_aggregate).text,
           "it applies only with --sync_replicas");
  }

  if (!flags.job_name.empty()) {
    flags.cluster = TaskCluster();
    const int tasks = flags.cluster.num_tasks(flags.job_name);
    if (tasks == 0) {
      Refuse("job_name", flags.job_name, "the cluster has no such job: " + flags.cluster.ToFlag());
    }
    flags.task_index = static_cast<int>(WholeNumber(
        FLAGS_task_index, 0, tasks - 1, "the " + flags.job_name + " tasks of the cluster"));
    return flags;
  }

  RefuseTaskFlagsForTheLauncher();
  LauncherOptions& launcher = flags.launcher;
  launcher.num_workers =
      static_cast<int>(WholeNumber(FLAGS_num_workers, 1, 16, "processes on this machine"));
  launcher.checkpoint_dir = flags.checkpoint_dir;
  launcher.restart_ps = restart_ps;
  if (restart_ps || absl::GetFlag(FLAGS_restart_after_step).given) {
    launcher.restart_after_step = WholeNumber(FLAGS_restart_after_step, 0, flags.train_steps - 1,
                                              "below --train_steps, or no restart comes");
  }
  launcher.trace = absl::GetFlag(FLAGS_trace);
  launcher.timeout_secs = Seconds(FLAGS_timeout_secs);
  // The checked values, as every worker gets them.
  launcher.worker_flags = {"--train_steps=" + std::to_string(flags.train_steps),
                           "--save_steps=" + std::to_string(flags.save_steps),
                           "--log_every=" + std::to_string(flags.log_every),
                           "--step_delay_ms=" + std::to_string(flags.step_delay_ms),
                           "--max_wait_secs=" + Text(flags.max_wait_secs),
                           "--recovery_wait_secs=" + Text(flags.recovery_wait_secs),
                           "--rpc_timeout_secs=" + Text(flags.rpc_timeout_secs)};
  if (flags.sync_replicas) {
    launcher.worker_flags.push_back("--sync_replicas");
    launcher.worker_flags.push_back("--replicas_to_aggregate=" +
                                    std::to_string(flags.replicas_to_aggregate));
  }
  return flags;
}

}  // namespace mts
