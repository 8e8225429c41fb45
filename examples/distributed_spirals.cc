// distributed_spirals: a distributed training job on 127.0.0.1 from one command. Run without
// --job_name it is the launcher (distributed_launcher.h), which starts this same program as
// a parameter server, the chief and two workers; with --job_name it is one of those tasks,
// training the spirals MLP with between-graph replication:
//
//   bazel run //examples:distributed_spirals                      # ps + chief + 2 workers
//   bazel run //examples:distributed_spirals -- --restart_ps      # kill the ps mid-run
//
//   RecoverableSession      every worker, the chief included, survives a ps restart
//     CoordinatedSession
//       HookedSession       StopAtStepHook; the chief also saves checkpoints
//         Chief / Worker    ChiefSessionCreator restores or initialises; workers wait
//           RemoteSession   variables on /job:ps/task:0, the rest of the graph here
//
// The TensorFlow 1.x program it mirrors:
//
//   cluster = tf.train.ClusterSpec({"ps": [...], "worker": [...]})
//   server = tf.train.Server(cluster, job_name=FLAGS.job_name, task_index=FLAGS.task_index)
//   if FLAGS.job_name == "ps": server.join()
//   with tf.device(tf.train.replica_device_setter(cluster=cluster)):
//       ... the spirals MLP, global step, AdamOptimizer(0.02).minimize(loss, global_step)
//   with tf.train.MonitoredTrainingSession(master=server.target, is_chief=(task_index == 0),
//           checkpoint_dir=..., hooks=[tf.train.StopAtStepHook(last_step=...)]) as sess:
//       while not sess.should_stop(): sess.run(train_op, feed_dict)
//
// Flags: --job_name=ps|worker --task_index=N --cluster=ps=h:p;worker=h:p,h:p (or
// --cluster_file=spec.json) --checkpoint_dir=DIR --train_steps=N --save_steps=N
// --log_every=N --step_delay_ms=N --max_wait_secs=N --recovery_wait_secs=S. Every line it
// prints starts with the task's role, e.g. "[worker:0 chief]", so the launcher can
// interleave the processes' output.
// Stage 06's MonitoredTrainingSession assembles the same stack from its options (with
// master=server.target()); this example assembles it by hand from stages 02 to 05, so that
// chapter 07 can show each layer at work over the network.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "examples/distributed_launcher.h"
#include "examples/spirals_model.h"
#include "src/01_session/adam_optimizer.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/errors.h"
#include "src/01_session/example_data.h"
#include "src/01_session/loss_ops.h"
#include "src/01_session/math_ops.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/chief_session_creator.h"
#include "src/02_chief_worker/scaffold.h"
#include "src/02_chief_worker/worker_session_creator.h"
#include "src/03_hooked/checkpoint_saver_hook.h"
#include "src/03_hooked/checkpoint_saver_listener.h"
#include "src/03_hooked/session_run_hook.h"
#include "src/03_hooked/stop_at_step_hook.h"
#include "src/04_coordinated/coordinated_session.h"
#include "src/05_recoverable/recoverable_session.h"
#include "src/07_distributed/cluster_spec.h"
#include "src/07_distributed/replica_device_setter.h"
#include "src/07_distributed/server.h"

namespace {

using namespace mts;

std::map<std::string, std::string> ParseFlags(int argc, char** argv) {
  std::map<std::string, std::string> flags;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) {
      std::fprintf(stderr, "unexpected argument %s (flags are --name=value or --name)\n", argv[i]);
      std::exit(2);
    }
    const size_t eq = arg.find('=');
    if (eq == std::string::npos) {
      flags[arg.substr(2)] = "true";  // A switch: --restart_ps.
    } else {
      flags[arg.substr(2, eq - 2)] = arg.substr(eq + 1);
    }
  }
  return flags;
}

std::string Flag(const std::map<std::string, std::string>& flags, const std::string& name,
                 const std::string& fallback) {
  auto it = flags.find(name);
  return it == flags.end() ? fallback : it->second;
}

// Every line names the process, so interleaved output stays readable.
std::string g_role;
template <typename... Args>
void Say(const char* format, Args... args) {
  std::string line = "[" + g_role + "] " + format + "\n";
  std::printf(line.c_str(), args...);
  std::fflush(stdout);
}

// Prints the global step each (re)created session starts from: after a ps restart the
// chief's line shows the checkpoint it restored.
class SessionStartHook : public SessionRunHook {
 public:
  explicit SessionStartHook(Variable global_step) : global_step_(global_step) {}
  void AfterCreateSession(SessionInterface& session, Coordinator*) override {
    ++sessions_;
    Say("session %d ready at global step %lld", sessions_,
        static_cast<long long>(GlobalStepValue(session, global_step_)));
  }

 private:
  Variable global_step_;
  int sessions_ = 0;
};

// The chief reports each checkpoint it wrote.
class SaveReporter : public CheckpointSaverListener {
 public:
  bool AfterSave(SessionInterface&, int64_t step) override {
    Say("saved checkpoint at global step %lld", static_cast<long long>(step));
    return false;
  }
};

int RunWorker(const ClusterSpec& cluster, int task_index,
              const std::map<std::string, std::string>& flags) {
  const bool is_chief = task_index == 0;
  const int64_t train_steps = std::stoll(Flag(flags, "train_steps", "300"));
  const int64_t save_steps = std::stoll(Flag(flags, "save_steps", "50"));
  const int64_t log_every = std::stoll(Flag(flags, "log_every", "50"));
  const int step_delay_ms = std::stoi(Flag(flags, "step_delay_ms", "0"));
  const double max_wait_secs = std::stod(Flag(flags, "max_wait_secs", "120"));
  const double recovery_wait_secs = std::stod(Flag(flags, "recovery_wait_secs", "0.5"));
  const std::string checkpoint_dir = Flag(flags, "checkpoint_dir", "");

  // This task's server: its target names the cluster for the session.
  Server server(cluster, "worker", task_index);

  // [mts:distributed-graph]
  Graph graph;
  DefaultGraphScope as_default(graph);
  graph.set_seed(1);  // Every task builds the same initial values: the chief's are used.
  const SpiralsData data = SpiralsTrainingData();
  Output x = Placeholder(DataType::kFloat, {TensorShape::kUnknownDim, 2}, "x");
  Output labels = Placeholder(DataType::kInt64, {TensorShape::kUnknownDim}, "labels");
  Output loss;
  Operation* train_op = nullptr;
  Variable global_step;
  {
    // Every variable made in this scope, the optimizer's slots included, lives on the ps.
    ReplicaDeviceSetter on_ps(cluster.num_tasks("ps"));
    Output logits = SpiralsLogits(x);  // The MLP 2-32-32-3 of examples/spirals_model.h.
    loss = ReduceMean(SparseSoftmaxCrossEntropyWithLogits(labels, logits), std::nullopt, false,
                      "loss");
    global_step = GetOrCreateGlobalStep();
    train_op = AdamOptimizer(/*learning_rate=*/0.02).Minimize(loss, global_step);
  }
  // [mts:distributed-graph-end]

  // [mts:distributed-stack]
  auto scaffold = std::make_shared<Scaffold>();
  std::vector<std::shared_ptr<SessionRunHook>> hooks = {
      std::make_shared<StopAtStepHook>(std::nullopt, train_steps),
      std::make_shared<SessionStartHook>(global_step)};
  std::shared_ptr<SessionCreator> creator;
  if (is_chief) {
    // The chief initialises or restores, and saves checkpoints.
    creator = std::make_shared<ChiefSessionCreator>(scaffold, server.target(), checkpoint_dir);
    if (!checkpoint_dir.empty()) {
      hooks.push_back(std::make_shared<CheckpointSaverHook>(
          checkpoint_dir, std::nullopt, save_steps, nullptr, "model.ckpt", scaffold,
          std::vector<std::shared_ptr<CheckpointSaverListener>>{std::make_shared<SaveReporter>()}));
    }
  } else {
    // A worker waits until the chief has made the model ready, checking every
    // recovery_wait_secs (TensorFlow's default is 30 s; twice a second suits a demo).
    creator = std::make_shared<WorkerSessionCreator>(scaffold, server.target(), max_wait_secs,
                                                     nullptr, recovery_wait_secs);
  }
  for (auto& hook : hooks) hook->Begin();  // As MonitoredSession does, before creating.
  RecoveryOptions recovery;
  recovery.initial_backoff_secs = 0.1;  // A ps that is down: try again soon, not in a spin.
  recovery.max_backoff_secs = 1;
  RecoverableSession session(std::make_shared<CoordinatedSessionCreator>(creator, hooks), recovery);
  // [mts:distributed-stack-end]

  // [mts:distributed-loop]
  const FeedDict feeds = {{x, data.x}, {labels, data.labels}};
  int64_t local_steps = 0;
  float last_loss = NAN;
  int64_t step = 0;
  while (!session.ShouldStop()) {
    std::vector<Tensor> out = session.Run({loss, global_step.value()}, feeds, {train_op});
    last_loss = out[0].scalar<float>();
    step = out[1].scalar<int64_t>();
    if (++local_steps % log_every == 0) {
      Say("global step %lld  loss %.4f  (local step %lld)", static_cast<long long>(step), last_loss,
          static_cast<long long>(local_steps));
    }
    if (step_delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(step_delay_ms));
  }
  // [mts:distributed-loop-end]
  Say("done: global step %lld  loss %.4f  local steps %lld  recoveries %lld",
      static_cast<long long>(step), last_loss, static_cast<long long>(local_steps),
      static_cast<long long>(session.num_recoveries()));
  session.Close();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::map<std::string, std::string> flags = ParseFlags(argc, argv);
  const std::string job = Flag(flags, "job_name", "");
  const int task_index = std::stoi(Flag(flags, "task_index", "0"));
  try {
    const ClusterSpec cluster = flags.count("cluster_file")
                                    ? ClusterSpec::FromJsonFile(flags.at("cluster_file"))
                                    : ClusterSpec::FromFlag(Flag(flags, "cluster", ""));
    if (job.empty()) return RunLauncher("/proc/self/exe", flags);  // Runs itself as tasks.
    // [mts:ps-main]
    if (job == "ps") {
      g_role = "ps:" + std::to_string(task_index);
      Server server(cluster, "ps", task_index);
      Say("serving at %s, incarnation %llu", server.target().c_str(),
          static_cast<unsigned long long>(server.store().incarnation()));
      server.Join();  // Until killed: a parameter server never finishes on its own.
      return 0;
    }
    // [mts:ps-main-end]
    if (job == "worker") {
      g_role = "worker:" + std::to_string(task_index) + (task_index == 0 ? " chief" : "");
      return RunWorker(cluster, task_index, flags);
    }
    std::fprintf(stderr, "--job_name must be ps or worker, got '%s'\n", job.c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "[%s] failed: %s\n", g_role.c_str(), e.what());
    return 1;
  }
}
