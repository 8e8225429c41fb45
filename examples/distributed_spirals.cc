// distributed_spirals: a distributed training job on 127.0.0.1 from one command. Run without
// --job_name it is the launcher (distributed_launcher.h), which starts this same program as
// a parameter server, the chief and two workers; with --job_name it is one of those tasks,
// training the spirals MLP with between-graph replication:
//
//   bazel run //examples:distributed_spirals                      # ps + chief + 2 workers
//   bazel run //examples:distributed_spirals -- --restart_ps      # kill the ps mid-run
//   bazel run //examples:distributed_spirals -- --sync_replicas   # SyncReplicasOptimizer
//   bazel run //examples:distributed_spirals -- --help
//
//   MonitoredTrainingSession  <-- each worker: the whole stack, with master = its server's
//     MonitoredSession            grpc:// target; the chief also saves checkpoints
//       RecoverableSession      every worker, the chief included, survives a ps restart
//         ... Chief / Worker    the chief initialises or restores; workers wait
//               RemoteSession   variables on /job:ps/task:0, the rest of the graph here
//
// The TensorFlow 1.x program it mirrors:
//
//   cluster = tf.train.ClusterSpec({"ps": [...], "worker": [...]})
//   server = tf.train.Server(cluster, job_name=FLAGS.job_name, task_index=FLAGS.task_index)
//   if FLAGS.job_name == "ps": server.join()
//   with tf.device(tf.train.replica_device_setter(cluster=cluster)):
//       ... the spirals MLP, global step, AdamOptimizer(0.02).minimize(loss, global_step)
//   with tf.train.MonitoredTrainingSession(master=server.target, is_chief=(task_index == 0),
//           checkpoint_dir=..., save_checkpoint_steps=...,
//           hooks=[tf.train.StopAtStepHook(last_step=...), tf.train.NanTensorHook(loss)]) as sess:
//       while not sess.should_stop(): sess.run(train_op, feed_dict)
//
// Beyond that program, each worker watches the global step for what losing the chief costs:
// a step that goes back (a chief wrote the model over the live one: the steps since are
// lost) and a newest checkpoint far behind (the chief may be gone: nothing is saved).
// Every line it prints starts with the task's role, e.g. "[worker:0 chief]", so the
// launcher can interleave the processes' output. The flags: distributed_flags.h, or --help.
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "examples/distributed_flags.h"
#include "examples/distributed_launcher.h"
#include "examples/example_output.h"
#include "examples/spirals_model.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/graph.h"
#include "src/01_session/learning/adam_optimizer.h"
#include "src/01_session/learning/example_data.h"
#include "src/01_session/learning/loss_ops.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/03_hooked/hooks/checkpoint_saver_listener.h"
#include "src/03_hooked/hooks/nan_tensor_hook.h"
#include "src/03_hooked/hooks/stop_at_step_hook.h"
#include "src/03_hooked/session_run_hook.h"
#include "src/06_monitored/monitored_session_scope.h"
#include "src/06_monitored/monitored_training_session.h"
#include "src/06_monitored/signal_stop_hook.h"
#include "src/07_distributed/cluster_spec.h"
#include "src/07_distributed/replica_device_setter.h"
#include "src/07_distributed/server.h"
#include "src/07_distributed/sync_replicas/sync_replicas_optimizer.h"
#include "src/platform/errors.h"
#include "src/platform/logging.h"
#include "tools/working_directory.h"

namespace {

using namespace mts;

// Every line names the process, so interleaved output stays readable. Once nobody reads
// stdout (a task run by hand into `| head`), the training loop is asked to stop after the
// step, as on SIGTERM: the chief writes its final checkpoint (example_output.h).
std::string g_role;
template <typename... Args>
void Say(const char* format, Args... args) {
  const std::string line = "[" + g_role + "] " + format;
  if (!PrintLine(line.c_str(), args...)) SignalStopHook::RequestStopForClosedStdout();
}

// Prints the global step each (re)created session starts from: after a ps restart the
// chief's line shows the checkpoint it restored. Every session after the first is a
// recovery.
class SessionStartHook : public SessionRunHook {
 public:
  explicit SessionStartHook(Variable global_step) : global_step_(global_step) {}
  void AfterCreateSession(SessionInterface& session, Coordinator*) override {
    ++sessions_;
    Say("session %d ready at global step %lld", sessions_,
        static_cast<long long>(GlobalStepValue(session, global_step_)));
  }
  int recoveries() const { return sessions_ > 0 ? sessions_ - 1 : 0; }

 private:
  Variable global_step_;
  int sessions_ = 0;
};

// The chief reports each checkpoint it wrote, the final one included.
class SaveReporter : public CheckpointSaverListener {
 public:
  bool AfterSave(SessionInterface&, int64_t step) override {
    Say("saved checkpoint at global step %lld", static_cast<long long>(step));
    return false;
  }
};

// [mts:chief-gone-watch]
// What the chief's absence or return costs, seen from the global step a worker reads. A
// step that goes back means a chief wrote the model over the live one: it restored a
// checkpoint (it restarted, or the ps did), or initialised it (told to, with
// --reinitialize_live_model): the steps between are lost. A newest checkpoint far behind the step
// means the chief may be gone: nothing the workers train is saved. The check reads only the small
// state file of the shared checkpoint directory, once per progress line; a worker that sees
// no state file (not the chief's machine, or no save yet) says nothing.
class ChiefWatch {
 public:
  ChiefWatch(std::string checkpoint_dir, int64_t save_steps)
      : checkpoint_dir_(std::move(checkpoint_dir)), save_steps_(save_steps) {}

  // Every step: `step` is the global step this worker just read.
  void StepRead(int64_t step) {
    if (last_step_ && step < *last_step_) {
      MTS_LOG(WARNING) << "global step went back from " << *last_step_ << " to " << step
                       << ": a chief wrote the model on the ps over the live one (it restored "
                          "a checkpoint, or initialised it); the steps between are lost";
    }
    last_step_ = step;
  }

  // Every progress line of a worker that is not the chief.
  void CheckCheckpoints(int64_t step) {
    const std::optional<int64_t> newest = NewestCheckpointStep();
    if (!newest) return;
    const bool behind = step - *newest > 3 * save_steps_;
    if (behind && !warned_about_ckpt_) {
      MTS_LOG(WARNING) << "the newest checkpoint in " << checkpoint_dir_ << " is at global step "
                       << *newest << ", " << step - *newest << " steps behind the global step "
                       << step << " (the chief saves every " << save_steps_
                       << "): the chief may be gone. Training goes on, but what it adds after "
                       << "global step " << *newest
                       << " is lost when the job stops or the chief restarts; check the chief.";
    }
    warned_about_ckpt_ = behind;  // Warn again only after the checkpoints caught up.
  }

 private:
  // The step of the newest checkpoint, from the name the state file gives it
  // ("model.ckpt-1263"); nullopt if there is none or it cannot be read.
  std::optional<int64_t> NewestCheckpointStep() const {
    try {
      const std::optional<CheckpointState> state = GetCheckpointState(checkpoint_dir_);
      if (!state) return std::nullopt;
      const std::string& path = state->model_checkpoint_path;
      return std::stoll(path.substr(path.rfind('-') + 1));
    } catch (const std::exception&) {
      return std::nullopt;  // A state file being replaced, or not ours: check next time.
    }
  }

  std::string checkpoint_dir_;
  int64_t save_steps_;
  std::optional<int64_t> last_step_;
  bool warned_about_ckpt_ = false;
};
// [mts:chief-gone-watch-end]

int RunWorker(const DistributedFlags& flags) {
  const bool is_chief = flags.task_index == 0;
  // This task's server: its target names the cluster for the session, and gives the
  // session its options (TensorFlow's Server(config=...)).
  ServerOptions server_options;
  server_options.rpc_timeout_secs = flags.rpc_timeout_secs;
  Server server(flags.cluster, "worker", flags.task_index, /*start=*/true, server_options);

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
  AdamOptimizer adam(/*learning_rate=*/0.02);
  std::unique_ptr<SyncReplicasOptimizer> sync;  // With --sync_replicas.
  {
    // Every variable made in this scope, the optimizer's slots included, lives on the ps.
    ReplicaDeviceSetter on_ps(flags.cluster.num_tasks("ps"));
    Output logits = SpiralsLogits(x);  // The MLP 2-32-32-3 of examples/spirals_model.h.
    loss = ReduceMean(SparseSoftmaxCrossEntropyWithLogits(labels, logits), std::nullopt, false,
                      "loss");
    global_step = GetOrCreateGlobalStep();
    if (flags.sync_replicas) {
      // [mts:distributed-sync]
      const int workers = flags.cluster.num_tasks("worker");
      sync = std::make_unique<SyncReplicasOptimizer>(
          adam, flags.replicas_to_aggregate > 0 ? flags.replicas_to_aggregate : workers, workers);
      train_op = sync->Minimize(loss, global_step);
      // [mts:distributed-sync-end]
    } else {
      train_op = adam.Minimize(loss, global_step);
    }
  }
  // [mts:distributed-graph-end]

  // [mts:distributed-stack]
  auto session_start = std::make_shared<SessionStartHook>(global_step);
  MonitoredTrainingSessionOptions options;
  options.master = server.target();  // grpc://...: RemoteSessions, variables on the ps.
  options.is_chief = is_chief;
  // The chief restores from here or initialises, then saves every save_steps and at the
  // end; the other workers ignore it, as in TensorFlow.
  options.checkpoint_dir = flags.checkpoint_dir;
  options.save_checkpoint_steps = flags.save_steps;
  options.checkpoint_saver_listeners = {std::make_shared<SaveReporter>()};
  options.hooks = {StopAtStepHook::AtLastStep(flags.train_steps),
                   std::make_shared<NanTensorHook>(loss), session_start};
  // The chief's hook starts the aggregation and puts the first tokens; without it every
  // worker would wait for a token (and say so, every wait_warning_secs).
  if (sync) options.hooks.push_back(sync->MakeSessionRunHook(is_chief));
  // A worker checks whether the chief has made the model ready every recovery_wait_secs
  // (TensorFlow's 30 s; a demo wants less), for at most max_wait_secs.
  options.max_wait_secs = flags.max_wait_secs;
  options.recovery_wait_secs = flags.recovery_wait_secs;
  options.recovery.initial_backoff_secs = 0.1;  // A ps that is down: try again soon, not in a spin.
  options.recovery.max_backoff_secs = 1;
  // A chief never initialises over a model the ps holds for another job, unless told to.
  options.reinitialize_live_model = flags.reinitialize_live_model;
  std::unique_ptr<MonitoredSession> session = MonitoredTrainingSession(options);
  // [mts:distributed-stack-end]

  // [mts:distributed-loop]
  const FeedDict feeds = {{x, data.x}, {labels, data.labels}};
  ChiefWatch watch(flags.checkpoint_dir, flags.save_steps);
  int64_t local_steps = 0;
  float last_loss = NAN;
  int64_t step = 0;
  WithMonitoredSession(*session, [&](MonitoredSession& sess) {
    while (!sess.ShouldStop()) {
      std::vector<Tensor> out = sess.Run({loss, global_step.value()}, feeds, {train_op});
      last_loss = out[0].scalar<float>();
      step = out[1].scalar<int64_t>();
      watch.StepRead(step);
      if (++local_steps % flags.log_every == 0) {
        Say("global step %lld  loss %.4f  (local step %lld)", static_cast<long long>(step),
            last_loss, static_cast<long long>(local_steps));
        if (!is_chief && !flags.checkpoint_dir.empty()) watch.CheckCheckpoints(step);
      }
      if (flags.step_delay_ms > 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(flags.step_delay_ms));
      }
    }
  });  // A clean close: the hooks' End, and the chief's final checkpoint.
  // [mts:distributed-loop-end]
  Say("done: global step %lld  loss %.4f  local steps %lld  recoveries %lld",
      static_cast<long long>(step), last_loss, static_cast<long long>(local_steps),
      static_cast<long long>(session_start->recoveries()));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  mts::SetUpExampleOutput("distributed_spirals");    // SIGPIPE, SIGXFSZ ignored, as Python does.
  if (!mts::EnterBuildWorkingDirectory()) return 1;  // Relative paths are the user's.
  const DistributedFlags flags = ParseDistributedFlags(argc, argv);  // Exits 2 on a bad value.
  try {
    if (flags.job_name.empty()) {
      return RunLauncher("/proc/self/exe", flags.launcher);  // Runs itself as the tasks.
    }
    // [mts:ps-main]
    if (flags.job_name == "ps") {
      g_role = "ps:" + std::to_string(flags.task_index);
      Server server(flags.cluster, "ps", flags.task_index);
      // Until the job is done: the launcher then sends SIGTERM, which stops the server, and
      // the ps ends cleanly (TensorFlow's server.join() never returns; its ps is killed).
      const int sig = server.JoinUntilSignal([&] {
        Say("serving at %s, incarnation %llu", server.target().c_str(),
            static_cast<unsigned long long>(server.store().incarnation()));
      });
      Say("stopped by %s: the job is done", sig == SIGINT ? "SIGINT" : "SIGTERM");
      return 0;
    }
    // [mts:ps-main-end]
    g_role = "worker:" + std::to_string(flags.task_index) + (flags.task_index == 0 ? " chief" : "");
    return RunWorker(flags);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "[%s] failed: %s\n", (g_role.empty() ? "launcher" : g_role).c_str(),
                 e.what());
    return 1;
  }
}
