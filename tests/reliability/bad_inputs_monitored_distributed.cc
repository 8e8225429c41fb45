// bad_inputs_monitored_distributed.cc: the rows of the bad-input table (bad_inputs.h) of
// stage 06 (MonitoredSession, SingularMonitoredSession, MonitoredTrainingSession,
// WithMonitoredSession) and stage 07 (ClusterSpec, Server, RemoteSession over gRPC,
// ReplicaDeviceSetter, PsClient's deadlines).
//
// Stage 06 is where a training loop meets its checkpoints, so most of its rows start from a
// real checkpoint (w = 7 at step 1) in the row's directory and check afterwards that it is
// still named by the state file and still restores: a hook that throws, a step that fails,
// a directory that cannot be used, none of them may cost it. Stage 07's rows talk to real
// gRPC servers on free ports of 127.0.0.1, and to ports where nothing listens; each is
// bounded by a short deadline or a refused connection, so the rows take milliseconds.
#include <cerrno>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "src/01_session/array_ops.h"
#include "src/01_session/graph.h"
#include "src/01_session/learning/adam_optimizer.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/session.h"
#include "src/01_session/session_factory.h"
#include "src/01_session/tensor.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/chief_session_creator.h"
#include "src/02_chief_worker/saver.h"
#include "src/02_chief_worker/scaffold.h"
#include "src/03_hooked/events/summary_writer_cache.h"
#include "src/06_monitored/monitored_session.h"
#include "src/06_monitored/monitored_session_scope.h"
#include "src/06_monitored/monitored_training_session.h"
#include "src/06_monitored/step_context.h"
#include "src/07_distributed/cluster_spec.h"
#include "src/07_distributed/remote_session.h"
#include "src/07_distributed/replica_device_setter.h"
#include "src/07_distributed/server.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "tests/reliability/bad_input_support.h"
#include "tests/testing/failing_file_system.h"
#include "tests/testing/local_socket.h"

namespace mts {
namespace {

// ---- Helpers of stage 06 ---------------------------------------------------------------------

// A model that trains: w (3.0 until restored or initialised), the global step, and a train
// op adding 1 to both. With `ps_tasks` > 0 its variables are placed on that many ps tasks.
struct TrainableModel {
  explicit TrainableModel(int ps_tasks = 0) {
    std::unique_ptr<ReplicaDeviceSetter> on_ps;
    if (ps_tasks > 0) on_ps = std::make_unique<ReplicaDeviceSetter>(ps_tasks);
    w = Variable(Tensor::Scalar(3.0f), "w");
    global_step = GetOrCreateGlobalStep();
    train_op = Group({w.AssignAdd(Constant(1.0f)).op(), IncrementGlobalStep().op()});
  }
  Fresh fresh;
  Variable w;
  Variable global_step;
  Operation* train_op = nullptr;
};

// The starting checkpoint of the stage 06 rows: <dir>/model.ckpt-1 with w = 7 at step 1.
// Returns the directory, fresh and named `name`.
std::string DirWithCheckpoint(const std::string& name) {
  const std::string dir = FreshDir(name);
  TrainableModel model;
  Session session(&model.fresh.graph);
  session.Run(GlobalVariablesInitializer());
  session.Run({}, {}, {model.w.Assign(Constant(7.0f)).op()});
  session.Run({}, {}, {model.global_step.Assign(Constant(int64_t{1})).op()});
  Saver().Save(session, JoinPath(dir, "model.ckpt"), 1);
  return dir;
}

// The `after` check of the rows above: the checkpoint of DirWithCheckpoint(name) survived.
std::function<std::string()> StartingCheckpointIntact(const std::string& name) {
  return [name] {
    const std::string dir = FreshDir(name);
    return CheckpointIntact(dir, JoinPath(dir, "model.ckpt-1"));
  };
}

// A chief's MonitoredTrainingSession over `dir` with `hooks` after the default ones.
std::unique_ptr<MonitoredSession> TrainingSession(const std::string& dir,
                                                  MonitoredSession::Hooks hooks = {}) {
  MonitoredTrainingSessionOptions options;
  options.checkpoint_dir = dir;
  options.hooks = std::move(hooks);
  return MonitoredTrainingSession(std::move(options));
}

// One training step, in a `with` block, of a MonitoredTrainingSession that restores the
// checkpoint of DirWithCheckpoint(name), with a hook that throws from `where`.
void TrainWithThrowingHook(const std::string& name, const std::string& where) {
  const std::string dir = DirWithCheckpoint(name);
  TrainableModel model;
  std::unique_ptr<MonitoredSession> session =
      TrainingSession(dir, {std::make_shared<ThrowingHook>(where)});
  WithMonitoredSession(*session,
                       [&](MonitoredSession& sess) { sess.Run({}, {}, {model.train_op}); });
}

// ---- Helpers of stage 07 ---------------------------------------------------------------------

// A ps task serving on `address` (port 0: a free one).
std::unique_ptr<Server> StartPs(const std::string& address = "127.0.0.1:0") {
  return std::make_unique<Server>(ClusterSpec({{"ps", {address}}}), "ps", 0);
}

// "127.0.0.1:port" of a started server.
std::string AddressOf(const Server& server) { return "127.0.0.1:" + std::to_string(server.port()); }

// ---- The rows, a function a topic, called in table order ----------------------------------

// 06: MonitoredTrainingSession given two frequencies for one thing.
void AppendMonitoredOptionRows(std::vector<BadInput>& rows) {
  rows.push_back(Row("06",
                     "MonitoredTrainingSession with both save_checkpoint_secs and "
                     "save_checkpoint_steps",
                     "ValueError", "Set only one of save_checkpoint_secs and save_checkpoint_steps",
                     [] {
                       TrainableModel model;
                       MonitoredTrainingSessionOptions options;
                       options.checkpoint_dir = FreshDir("mts_both_checkpoint_freqs");
                       options.save_checkpoint_secs = 60;
                       options.save_checkpoint_steps = 100;
                       MonitoredTrainingSession(options);
                     }));
  rows.push_back(Row("06",
                     "MonitoredTrainingSession with both save_summaries_steps and "
                     "save_summaries_secs",
                     "ValueError", "Set only one of save_summaries_steps and save_summaries_secs",
                     [] {
                       TrainableModel model;
                       MonitoredTrainingSessionOptions options;
                       options.checkpoint_dir = FreshDir("mts_both_summary_freqs");
                       options.save_summaries_steps = 10;
                       options.save_summaries_secs = 30;
                       MonitoredTrainingSession(options);
                     }));
}

// 06: a MonitoredSession run or closed after close, in and out of a `with` block.
void AppendMonitoredCloseRows(std::vector<BadInput>& rows) {
  rows.push_back(Row("06", "run after close of a MonitoredSession", "RuntimeError",
                     "create a new session to run again", [] {
                       TrainableModel model;
                       MonitoredSession session;
                       session.Close();
                       session.Run({}, {}, {model.train_op});
                     }));
  rows.push_back(Row("06", "close a MonitoredSession twice", "RuntimeError", "Close it once", [] {
    TrainableModel model;
    MonitoredSession session;
    session.Close();
    session.Close();
  }));
  rows.push_back(Row("06", "a with-block body that closes the session itself", "RuntimeError",
                     "Close it once", [] {
                       TrainableModel model;
                       MonitoredSession session;
                       WithMonitoredSession(session, [](MonitoredSession& sess) { sess.Close(); });
                     }));
}

// 06: training over a checkpoint fails (a hook throws, in each method; a step function
// fails; the event disk fills): the checkpoint survives, and a clean close still saves.
void AppendMonitoredFailureRows(std::vector<BadInput>& rows) {
  for (const char* where : {"Begin", "AfterCreateSession", "BeforeRun", "AfterRun"}) {
    const std::string name = std::string("hook_throws_in_") + where;
    rows.push_back(Row(
        "06",
        std::string("a hook that throws in ") + where +
            " (MonitoredTrainingSession over a checkpoint)",
        "InvalidArgumentError", "fix the hook",
        [name, where] { TrainWithThrowingHook(name, where); }, StartingCheckpointIntact(name)));
  }
  rows.push_back(Row(
      "06", "a hook that throws in End (after the final checkpoint's hook)", "InvalidArgumentError",
      "fix the hook", [] { TrainWithThrowingHook("hook_throws_in_End", "End"); },
      [] {
        // The clean close ran CheckpointSaverHook's End first: the trained step is saved.
        const std::string dir = FreshDir("hook_throws_in_End");
        return CheckpointHolds(dir, JoinPath(dir, "model.ckpt-2"), 8.0f);
      }));
  rows.push_back(Row(
      "06", "a chief-only hook that throws in End (before the final checkpoint's hook)",
      "InvalidArgumentError", "fix the hook",
      [] {
        const std::string dir = DirWithCheckpoint("chief_only_throws_in_End");
        TrainableModel model;
        MonitoredTrainingSessionOptions options;
        options.checkpoint_dir = dir;
        options.chief_only_hooks = {std::make_shared<ThrowingHook>("End")};
        std::unique_ptr<MonitoredSession> session = MonitoredTrainingSession(std::move(options));
        WithMonitoredSession(*session,
                             [&](MonitoredSession& sess) { sess.Run({}, {}, {model.train_op}); });
      },
      [] {
        // Every End ran: the CheckpointSaverHook after the failing hook saved the step.
        const std::string dir = FreshDir("chief_only_throws_in_End");
        return CheckpointHolds(dir, JoinPath(dir, "model.ckpt-2"), 8.0f);
      }));
  rows.push_back(Row(
      "06", "the disk under the event file full, then a clean close", "none",
      "are kept and written again in 1 s; the file is kept, whole, and continued",
      [] {
        const std::string dir = DirWithCheckpoint("events_disk_full");
        TrainableModel model;
        FailingWritesFileSystem disk("tfevents", ENOSPC);
        FileWriterOptions on_disk;
        on_disk.fs = &disk;
        // The writer every hook of `dir` uses, over the full disk.
        SummaryWriterCache::Insert(std::make_shared<FileWriter>(dir, on_disk));
        struct ForgetWriter {  // The cached writer must not outlive `disk`.
          ~ForgetWriter() { SummaryWriterCache::Clear(); }
        } forget;
        std::unique_ptr<MonitoredSession> session = TrainingSession(dir);
        WithMonitoredSession(*session,
                             [&](MonitoredSession& sess) { sess.Run({}, {}, {model.train_op}); });
      },
      [] {
        // The events' failure was logged and raised nothing; the final checkpoint is saved.
        const std::string dir = FreshDir("events_disk_full");
        return CheckpointHolds(dir, JoinPath(dir, "model.ckpt-2"), 8.0f);
      }));
  rows.push_back(Row(
      "06", "a step function that fails (RunStepFn, an unfed placeholder)", "InvalidArgumentError",
      "You must feed a value for placeholder tensor 'x'",
      [] {
        const std::string dir = DirWithCheckpoint("step_fn_fails");
        TrainableModel model;
        Output x = Placeholder(DataType::kFloat, {}, "x");
        Output y = Identity(x);
        std::unique_ptr<MonitoredSession> session = TrainingSession(dir);
        WithMonitoredSession(*session, [&](MonitoredSession& sess) {
          sess.RunStepFn([&](StepContext& step) { step.RunWithHooks({y}); });
        });
      },
      StartingCheckpointIntact("step_fn_fails")));
}

// 06: a checkpoint directory of another model or that is a file, a worker with no chief,
// a SingularMonitoredSession given two places to restore from.
void AppendMonitoredSetupRows(std::vector<BadInput>& rows) {
  rows.push_back(Row(
      "06", "a checkpoint of another model in checkpoint_dir", "NotFoundError",
      "was a variable added or renamed",
      [] {
        const std::string dir = DirWithCheckpoint("other_model_in_dir");
        Fresh fresh;
        Variable v(Tensor::Scalar(1.0f), "v");
        GetOrCreateGlobalStep();
        TrainingSession(dir);
      },
      StartingCheckpointIntact("other_model_in_dir")));
  rows.push_back(Row(
      "06", "a checkpoint_dir that is a file", "FailedPreconditionError", "choose another path",
      [] {
        const std::string file = JoinPath(FreshDir("checkpoint_dir_is_file"), "file");
        DefaultFileSystem()->WriteFileAtomically(file, "keep me");
        TrainableModel model;
        TrainingSession(file);
      },
      []() -> std::string {
        const std::string file = JoinPath(FreshDir("checkpoint_dir_is_file"), "file");
        if (DefaultFileSystem()->ReadFile(file) != "keep me") return file + " was changed";
        return "";
      }));
  rows.push_back(Row("06", "a worker whose chief never initialises the model (max_wait_secs 0)",
                     "DeadlineExceededError", "Check that the chief is running", [] {
                       TrainableModel model;
                       MonitoredTrainingSessionOptions options;
                       options.is_chief = false;
                       options.max_wait_secs = 0;  // One check, no wait: no time passes.
                       MonitoredTrainingSession(options);
                     }));
  rows.push_back(Row(
      "06",
      "SingularMonitoredSession with both checkpoint_dir and "
      "checkpoint_filename_with_path",
      "ValueError", "Pass only one",
      [] {
        const std::string dir = DirWithCheckpoint("singular_both_paths");
        TrainableModel model;
        SingularMonitoredSessionOptions options;
        options.checkpoint_dir = dir;
        options.checkpoint_filename_with_path = JoinPath(dir, "model.ckpt-1");
        SingularMonitoredSession session(options);
      },
      StartingCheckpointIntact("singular_both_paths")));
}

// 07: cluster specs malformed, of a job with no tasks or named twice, missing, asked for
// a task they lack.
void AppendClusterSpecRows(std::vector<BadInput>& rows) {
  rows.push_back(Row("07", "a cluster spec of malformed JSON", "ValueError",
                     "the format is {\"ps\": [\"host:port\"]",
                     [] { ClusterSpec::FromJson(R"({"ps": ["ps0:2222")"); }));
  rows.push_back(Row("07", "a cluster flag entry without '=' (\"ps:ps0:2222\")", "ValueError",
                     "e.g. ps=127.0.0.1:2222", [] { ClusterSpec::FromFlag("ps:ps0:2222"); }));
  rows.push_back(Row("07", "a task address without a port (\"ps=ps0\")", "ValueError",
                     "give every task as host:port",
                     [] { ClusterSpec::FromFlag("ps=ps0;worker=worker0:2222"); }));
  rows.push_back(Row("07", "a job with no tasks (\"ps=;worker=...\")", "ValueError",
                     "list at least one host:port",
                     [] { ClusterSpec::FromFlag("ps=;worker=worker0:2222"); }));
  rows.push_back(Row("07", "a job named twice in a cluster flag", "ValueError",
                     "list all its tasks in one entry",
                     [] { ClusterSpec::FromFlag("ps=ps0:2222;ps=ps1:2222"); }));
  rows.push_back(Row("07", "a job named twice in a cluster JSON", "ValueError",
                     "list all its tasks in one entry",
                     [] { ClusterSpec::FromJson(R"({"ps": ["ps0:2222"], "ps": ["ps1:2222"]})"); }));
  rows.push_back(Row("07", "a missing cluster spec file", "NotFoundError", "check the path", [] {
    ClusterSpec::FromJsonFile(JoinPath(FreshDir("missing_cluster_file"), "cluster.json"));
  }));
  rows.push_back(Row("07", "the address of a task the cluster does not have", "ValueError",
                     "use a job and task index the cluster lists",
                     [] { ClusterSpec::FromFlag("ps=ps0:2222").task_address("ps", 1); }));
}

// 07: Servers for a job the cluster lacks, or on a port taken.
void AppendServerRows(std::vector<BadInput>& rows) {
  rows.push_back(Row("07", "a Server for an unknown job", "ValueError",
                     "use a job and task index the cluster lists", [] {
                       Server(ClusterSpec::FromFlag("ps=ps0:2222"), "worker", 0, /*start=*/false);
                     }));
  rows.push_back(Row("07", "a Server on a port another process holds", "UnavailableError",
                     "is another process using the port?", [] {
                       LocalSocket taken(/*listening=*/true);
                       Server(ClusterSpec({{"ps", {taken.address()}}}), "ps", 0);
                     }));
  rows.push_back(Row("07", "two Servers on one address", "UnavailableError",
                     "is another process using the port?", [] {
                       std::unique_ptr<Server> first = StartPs();
                       StartPs(AddressOf(*first));
                     }));
}

// 07: session targets without "grpc://", variables placed on ps tasks the cluster lacks.
void AppendTargetAndPlacementRows(std::vector<BadInput>& rows) {
  rows.push_back(Row("07", "a distributed target without \"grpc://\"", "InvalidArgumentError",
                     "write the ps or master address after grpc://",
                     [] { ClusterOfTarget("ps0:2222"); }));
  rows.push_back(Row("07", "a master without \"grpc://\" (\"127.0.0.1:2222\") for a session",
                     "NotFoundError", "grpc://host:port with //src/07_distributed:remote_session",
                     [] {
                       TrainableModel model(/*ps_tasks=*/1);
                       NewSession(&model.fresh.graph, SessionOptions{"127.0.0.1:2222"});
                     }));
  rows.push_back(Row("07", "ReplicaDeviceSetter over 0 ps tasks", "ValueError",
                     "pass the number of ps tasks", [] {
                       Fresh fresh;
                       ReplicaDeviceSetter on_ps(0);
                     }));
  rows.push_back(Row("07", "variables placed on 2 ps tasks, a cluster with 1", "ValueError",
                     "use a job and task index the cluster lists", [] {
                       std::unique_ptr<Server> ps = StartPs();
                       TrainableModel model(/*ps_tasks=*/2);
                       NewSession(&model.fresh.graph, SessionOptions{ps->target()});
                     }));
}

// 07: a ps or master that cannot be reached, does not answer, or restarted under a
// session.
void AppendUnreachableTaskRows(std::vector<BadInput>& rows) {
  rows.push_back(Row("07", "an unreachable ps over gRPC (a port nobody listens on)",
                     "UnavailableError", "Check that the ps process is running", [] {
                       TrainableModel model(/*ps_tasks=*/1);
                       NewSession(&model.fresh.graph,
                                  SessionOptions{"grpc://" + AddressNobodyListensOn()});
                     }));
  rows.push_back(Row("07",
                     "a master that stays unreachable over gRPC "
                     "(MonitoredTrainingSession, 2 attempts)",
                     "UnavailableError", "check that the master and parameter servers are up", [] {
                       TrainableModel model(/*ps_tasks=*/1);
                       MonitoredTrainingSessionOptions options;
                       options.master = "grpc://" + AddressNobodyListensOn();
                       options.recovery.max_creation_attempts = 2;  // At once: no backoff.
                       MonitoredTrainingSession(options);
                     }));
  rows.push_back(Row("07", "a ps that accepts connections but never answers (0.2 s deadline)",
                     "UnavailableError", "Check that the ps process is running", [] {
                       LocalSocket silent(/*listening=*/true);
                       TrainableModel model(/*ps_tasks=*/1);
                       RemoteSession(&model.fresh.graph, SessionOptions{},
                                     ClusterSpec({{"ps", {silent.address()}}}),
                                     RemoteSessionOptions{0.2});
                     }));
  rows.push_back(Row("07", "a ps that restarted (and lost its variables) under a session",
                     "AbortedError", "Re-create the session", [] {
                       std::unique_ptr<Server> ps = StartPs();
                       const std::string address = AddressOf(*ps);
                       TrainableModel model(/*ps_tasks=*/1);
                       Operation* init = GlobalVariablesInitializer();
                       std::unique_ptr<Session> session =
                           NewSession(&model.fresh.graph, SessionOptions{"grpc://" + address});
                       session->Run({}, {}, {init});
                       ps.reset();
                       ps = StartPs(address);
                       session->Run({}, {}, {model.train_op});
                     }));
}

// 07, issue 32: a chief whose session is made again on the same ps processes (a ps that
// missed the RPC deadline) keeps the live model; a chief that did not write the live model
// and has nothing to restore refuses to initialise over it.
void AppendLiveModelRows(std::vector<BadInput>& rows) {
  rows.push_back(Row(
      "07",
      "the chief's session made again on the same ps (it missed the RPC deadline; TensorFlow "
      "restores the checkpoint over the live model)",
      "none", "a slow parameter server costs time, not training", [] {
        std::unique_ptr<Server> ps = StartPs();
        const std::string dir = FreshDir("slow_ps");
        TrainableModel model(/*ps_tasks=*/1);
        auto scaffold = std::make_shared<Scaffold>();
        ChiefSessionCreatorOptions chief;
        chief.master = "grpc://" + AddressOf(*ps);
        chief.checkpoint_dir = dir;
        ChiefSessionCreator creator(scaffold, chief);
        {
          std::unique_ptr<SessionInterface> first = creator.CreateSession();
          for (int i = 0; i < 3; ++i) first->Run({}, {}, {model.train_op});
          scaffold->saver()->Save(*first, JoinPath(dir, "model.ckpt"), 3);
          for (int i = 0; i < 5; ++i) first->Run({}, {}, {model.train_op});
        }  // An RPC missed its deadline: RecoverableSession asks the creator again.
        std::unique_ptr<SessionInterface> again = creator.CreateSession();
        const int64_t step = GlobalStepValue(*again, model.global_step);
        if (step != 8) {
          throw std::runtime_error("the live model went back to step " + std::to_string(step));
        }
      }));
  auto ps = std::make_shared<std::unique_ptr<Server>>();
  rows.push_back(Row(
      "07",
      "a second job's chief, with nothing to restore, on a ps that holds a live model "
      "(TensorFlow initialises over it)",
      "FailedPreconditionError", "set reinitialize_live_model",
      [ps] {
        *ps = StartPs();
        MonitoredTrainingSessionOptions options;
        options.master = "grpc://" + AddressOf(**ps);
        options.stop_on_signals = false;
        {  // The first job trains to step 8 (no checkpoint_dir: nothing to save).
          TrainableModel model(/*ps_tasks=*/1);
          std::unique_ptr<MonitoredSession> first = MonitoredTrainingSession(options);
          for (int i = 0; i < 8; ++i) first->Run({}, {}, {model.train_op});
          first->Close();
        }
        TrainableModel model(/*ps_tasks=*/1);
        MonitoredTrainingSession(options);  // Another job's chief, on the same ps.
      },
      [ps] {
        TrainableModel model(/*ps_tasks=*/1);
        const int64_t step = GlobalStepValue(
            *NewSession(&model.fresh.graph, SessionOptions{"grpc://" + AddressOf(**ps)}),
            model.global_step);
        ps->reset();
        return step == 8 ? std::string()
                         : "the ps holds global step " + std::to_string(step) + ", not 8";
      }));
}

// 07: tasks that disagree on a variable, an update across two ps tasks, a chief restarted
// over the model the ps kept.
void AppendClusterStateRows(std::vector<BadInput>& rows) {
  rows.push_back(
      Row("07", "two tasks declaring one variable with different shapes", "InvalidArgumentError",
          "all tasks must build the same model", [] {
            std::unique_ptr<Server> ps = StartPs();
            {  // The first task puts w on the ps as a float [2].
              Fresh first;
              {
                ReplicaDeviceSetter on_ps(1);  // Places w when it closes.
                Variable w(Tensor::Vector<float>({1, 2}), "w");
              }
              Operation* init = GlobalVariablesInitializer();
              NewSession(&first.graph, SessionOptions{ps->target()})->Run({}, {}, {init});
            }
            Fresh second;
            Variable w;
            {
              ReplicaDeviceSetter on_ps(1);
              w = Variable(Tensor::Vector<float>({1, 2, 3}), "w");
            }
            NewSession(&second.graph, SessionOptions{ps->target()})->Run(w.value());
          }));
  rows.push_back(Row("07", "an op updating variables on two ps tasks (Adam's slots dealt apart)",
                     "UnimplementedError", "place a variable and its slots on one task", [] {
                       std::unique_ptr<Server> ps0 = StartPs(), ps1 = StartPs();
                       Fresh fresh;
                       Operation* train_op = nullptr;
                       {
                         ReplicaDeviceSetter on_ps(2);
                         Variable w(Tensor::Vector<float>({1, 2}), "w");
                         train_op = AdamOptimizer(0.1).Minimize(ReduceSum(Square(w.value())));
                       }
                       RemoteSession session(
                           &fresh.graph, SessionOptions{},
                           ClusterSpec({{"ps", {AddressOf(*ps0), AddressOf(*ps1)}}}));
                       session.Run({}, {}, {train_op});
                     }));
  rows.push_back(Row(
      "07", "a chief restarted while the ps kept the live model (TensorFlow rolls it back silently)",
      "none", "steps of training are lost", [] {
        std::unique_ptr<Server> ps = StartPs();
        const std::string dir = FreshDir("chief_restart");
        MonitoredTrainingSessionOptions options;
        options.master = "grpc://" + AddressOf(*ps);
        options.checkpoint_dir = dir;
        options.save_checkpoint_steps = 5;  // At creation (step 0) and at step 5.
        options.save_summaries_steps = 0;
        options.log_step_count_steps = 0;
        options.stop_on_signals = false;
        {
          TrainableModel model(/*ps_tasks=*/1);
          std::unique_ptr<MonitoredSession> chief = MonitoredTrainingSession(options);
          for (int i = 0; i < 8; ++i) chief->Run({}, {}, {model.train_op});
        }  // The chief dies without its clean close: no final checkpoint; the ps keeps step 8.
        TrainableModel model(/*ps_tasks=*/1);
        MonitoredTrainingSession(options)->Close();  // Restores step 5 over the live model.
      }));
}

}  // namespace

void AppendMonitoredAndDistributedRows(std::vector<BadInput>& rows) {
  AppendMonitoredOptionRows(rows);
  AppendMonitoredCloseRows(rows);
  AppendMonitoredFailureRows(rows);
  AppendMonitoredSetupRows(rows);
  AppendClusterSpecRows(rows);
  AppendServerRows(rows);
  AppendTargetAndPlacementRows(rows);
  AppendUnreachableTaskRows(rows);
  AppendClusterStateRows(rows);
  AppendLiveModelRows(rows);
}

}  // namespace mts
