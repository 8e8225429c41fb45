#include "src/02_chief_worker/session_manager.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>

#include "src/01_session/session_factory.h"
#include "src/01_session/training_util.h"
#include "src/02_chief_worker/checkpoint/checkpoint_file.h"
#include "src/02_chief_worker/checkpoint/latest_sound_checkpoint.h"
#include "src/02_chief_worker/scaffold.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "src/platform/logging.h"

namespace mts {

SessionManagerOptions SessionManagerOptionsFor(const Scaffold& scaffold, Clock* clock) {
  SessionManagerOptions options;
  options.local_init_op = scaffold.local_init_op();
  options.local_init_feed_dict = scaffold.local_init_feed_dict();
  options.ready_op = scaffold.ready_op();
  options.ready_for_local_init_op = scaffold.ready_for_local_init_op();
  options.graph = scaffold.graph();
  options.clock = clock;
  return options;
}

namespace {

// How an op appears in the failure messages: its name, or "None" as TensorFlow prints it.
std::string NameOf(const Operation* op) { return op != nullptr ? op->name() : "None"; }

// A C++ function has no printable name; say whether there is one.
std::string NameOf(const SessionManager::InitFn& fn) { return fn ? "<init_fn>" : "None"; }

// A failed ready check's message, with what mts adds after a restore: the cause is almost
// always something the checkpoint does not hold, which only init_op would have set.
std::string Explained(const std::string& message, bool restored,
                      const RecoverSessionOptions& options) {
  if (!restored) return message;
  const std::string& source = !options.checkpoint_dir.empty()
                                  ? options.checkpoint_dir
                                  : options.checkpoint_filename_with_path;
  return message + ". The model was restored from " + source +
         ", so init_op and init_fn did not run and what the checkpoint does not hold stays "
         "unset: set what every session needs (input state, local variables) in "
         "local_init_op, and let the Scaffold's saver cover every global variable (its default "
         "does)";
}

std::string Join(const std::vector<std::string>& names) {
  std::string joined;
  for (const std::string& name : names) {
    if (!joined.empty()) joined += ", ";
    joined += name;
  }
  return joined;
}

// The names of the variables `saver` restores: the tensors a checkpoint must hold intact.
std::vector<std::string> VariableNames(const Saver& saver) {
  std::vector<std::string> names;
  for (const Variable& v : saver.variables()) names.push_back(v.name());
  return names;
}

// Whole seconds, as TensorFlow's "%d" prints them.
std::string Secs(double secs) { return std::to_string(static_cast<int64_t>(secs)); }

}  // namespace

SessionManager::SessionManager(SessionManagerOptions options)
    : local_init_op_(options.local_init_op),
      ready_op_(std::move(options.ready_op)),
      ready_for_local_init_op_(std::move(options.ready_for_local_init_op)),
      graph_(options.graph != nullptr ? options.graph : &GetDefaultGraph()),
      recovery_wait_secs_(options.recovery_wait_secs),
      local_init_run_options_(options.local_init_run_options),
      local_init_feed_dict_(std::move(options.local_init_feed_dict)),
      clock_(options.clock != nullptr ? options.clock : RealClock()) {
  if (ready_for_local_init_op_ && local_init_op_ == nullptr) {
    // TensorFlow's text, word for word (its stray space before the comma included).
    throw ValueError(
        "If you pass a ready_for_local_init_op you must also pass a local_init_op "
        ", ready_for_local_init_op [" +
        ready_for_local_init_op_->name() + "]");
  }
}

std::unique_ptr<Session> SessionManager::NewSession(const std::string& master) const {
  // The target picks the kind of session: in process for "", over gRPC for "grpc://..."
  // once stage 07 is linked in (session_factory.h). Traced runs time their ops on the
  // manager's clock too, so one fake clock drives a whole test.
  SessionOptions options;
  options.target = master;
  options.clock = clock_;
  return mts::NewSession(graph_, options);
}

void SessionManager::Sleep(double secs) const {
  clock_->SleepForMicros(static_cast<int64_t>(std::llround(secs * 1e6)));
}

std::pair<std::unique_ptr<Session>, bool> SessionManager::RestoreCheckpoint(
    const std::string& master, const RecoverSessionOptions& options) const {
  Saver* const saver = options.saver;
  const std::string& checkpoint_dir = options.checkpoint_dir;
  const std::string& checkpoint_filename_with_path = options.checkpoint_filename_with_path;
  // TensorFlow makes the session first and validates afterwards, so this mistake leaves an
  // open session behind. mts checks before making anything.
  if (!checkpoint_dir.empty() && !checkpoint_filename_with_path.empty()) {
    throw ValueError(
        "Can not provide both checkpoint_dir and checkpoint_filename_with_path. Pass only one: "
        "the directory restores its latest checkpoint, the path exactly that checkpoint.");
  }
  std::unique_ptr<Session> session = NewSession(master);
  // Beyond TensorFlow: the servers kept the model this manager wrote (a slow ps, not a
  // restarted one): restoring would only roll it back.
  if (KeepsModelItWrote(master, *session)) return {std::move(session), true};
  if (saver == nullptr || (checkpoint_dir.empty() && checkpoint_filename_with_path.empty())) {
    return {std::move(session), false};
  }
  if (!checkpoint_filename_with_path.empty()) {
    const std::optional<LiveModel> live = LiveModelOn(master, *session);
    NoteModelWritten(master, *session);
    saver->Restore(*session, checkpoint_filename_with_path);
    if (live) {
      WarnOfRollback(*live, master, checkpoint_filename_with_path, checkpoint_filename_with_path,
                     *session);
    }
    return {std::move(session), true};
  }

  // [mts:restore-checkpoint]
  // As TensorFlow's chief: ask which checkpoint the directory restores (waiting for one if
  // told to), then restore it and hand the saver the list it goes on rotating.
  CheckpointToRestore checkpoint = LatestSoundCheckpoint(checkpoint_dir, VariableNames(*saver));
  double waited = 0;  // Counted in sleeps, not read off the clock, as TensorFlow counts it.
  while (!checkpoint.found()) {
    if (!options.wait_for_checkpoint || waited >= options.max_wait_secs) {
      return {std::move(session), false};
    }
    MTS_LOG(INFO) << "Waiting for checkpoint to be available.";
    Sleep(recovery_wait_secs_);
    waited += recovery_wait_secs_;
    checkpoint = LatestSoundCheckpoint(checkpoint_dir, VariableNames(*saver));
  }
  if (!checkpoint.path) throw checkpoint.NoneSoundError();  // Every one damaged or missing.
  const std::optional<LiveModel> live = LiveModelOn(master, *session);
  NoteModelWritten(master, *session);
  saver->Restore(*session, *checkpoint.path);
  if (!checkpoint.skipped.empty()) MTS_LOG(WARNING) << checkpoint.FallbackWarning();
  if (live) WarnOfRollback(*live, master, checkpoint_dir, *checkpoint.path, *session);
  saver->RecoverLastCheckpoints(checkpoint.tracked);
  return {std::move(session), true};
  // [mts:restore-checkpoint-end]
}

namespace {
// The global step stored in the checkpoint at `path` under `name`; nullopt if the file (just
// restored, so whole a moment ago) cannot be read again or stores no such integer scalar.
std::optional<int64_t> StepInCheckpoint(const std::string& path, const std::string& name) {
  try {
    const CheckpointReader reader(*DefaultFileSystem(), path);
    if (!reader.Has(name)) return std::nullopt;
    const Tensor value = reader.Read(name);
    if (value.num_elements() != 1) return std::nullopt;
    if (value.dtype() == DataType::kInt64) return value.scalar<int64_t>();
    if (value.dtype() == DataType::kInt32) return value.scalar<int32_t>();
  } catch (const OpError&) {
  }
  return std::nullopt;
}
}  // namespace

// [mts:live-model-rollback]
std::optional<SessionManager::LiveModel> SessionManager::LiveModelOn(const std::string& master,
                                                                     Session& session) const {
  // In process ("") every session starts empty: there is no live model to roll back. On a
  // remote master the variables outlive the chief: a chief that restarted while the ps kept
  // running finds the model the workers are training. The shared (global) variables tell,
  // so the ready-for-local-init op is asked first: the new session's own local variables
  // are unset whatever the state of the model.
  const std::optional<Output>& global_ready =
      ready_for_local_init_op_ ? ready_for_local_init_op_ : ready_op_;
  if (master.empty() || !global_ready || !Ready(global_ready, session).ready) return std::nullopt;
  LiveModel live;
  if (const std::optional<Variable> step = GetGlobalStep(graph_)) {
    live.step = GlobalStepValue(session, *step);
  }
  return live;
}

void SessionManager::WarnOfRollback(const LiveModel& live, const std::string& master,
                                    const std::string& source, const std::string& restored_path,
                                    Session& session) const {
  // Beyond TensorFlow, which restores the same way without a word: the workers' steps since
  // the checkpoint are gone from the live model, and they will see the global step go back.
  std::optional<int64_t> restored;
  if (const std::optional<Variable> step = GetGlobalStep(graph_)) {
    // The step the checkpoint holds, not the one the session holds now: the workers train on
    // during the restore, so a step read back from the ps may already be a few past it.
    restored = StepInCheckpoint(restored_path, step->name());
    if (!restored) restored = GlobalStepValue(session, *step);
  }
  std::ostringstream line;
  line << "The model on " << master << " was live";
  if (live.step && restored) {
    if (*live.step <= *restored) return;  // Nothing the workers trained is lost.
    line << " at global step " << *live.step << " and was rolled back to the checkpoint from "
         << source << " at global step " << *restored << ": " << *live.step - *restored
         << " steps of training are lost";
  } else {
    line << " and was rolled back to the checkpoint from " << source
         << ": the training since that checkpoint is lost";
  }
  line << ". This chief did not write the live model (a chief that restarted, or a new "
          "session manager), so it restored its checkpoint, as TensorFlow's chief does; to lose "
          "fewer steps when a chief restarts, save checkpoints more often.";
  MTS_LOG(WARNING) << line.str();
}
// [mts:live-model-rollback-end]

// [mts:ready]
SessionManager::Readiness SessionManager::Ready(const std::optional<Output>& op, Session& session) {
  Readiness result;
  if (!op) return result;
  try {
    const Tensor value = session.Run(*op);
    // An int32 result is the legacy form of the ready op (a count, not names): TensorFlow
    // takes it as "ready" whatever it holds, and so does mts.
    if (value.dtype() == DataType::kInt32 || value.num_elements() == 0) return result;
    result.ready = false;
    result.missing = value.ToVector<std::string>();
    result.message = "Variables not initialized: " + Join(result.missing);
  } catch (const FailedPreconditionError& e) {
    // A ready op that reads a variable directly (rather than reporting on it) fails this way
    // while the variable is unset: that is "not ready", not an error.
    const std::string text = e.what();
    if (text.find("uninitialized") == std::string::npos) {
      MTS_LOG(WARNING) << "Model not ready raised: " << text;
      throw;
    }
    result.ready = false;
    result.message = text;
  }
  return result;
}
// [mts:ready-end]

SessionManager::Readiness SessionManager::TryRunLocalInitOp(Session& session) const {
  if (local_init_op_ == nullptr) return {};
  Readiness ready_for_local_init = Ready(ready_for_local_init_op_, session);
  if (!ready_for_local_init.ready) return ready_for_local_init;
  MTS_LOG(INFO) << "Running local_init_op.";
  session.Run({}, local_init_feed_dict_, {local_init_op_}, local_init_run_options_);
  MTS_LOG(INFO) << "Done running local_init_op.";
  return {};
}

// [mts:prepare-session]
std::unique_ptr<Session> SessionManager::PrepareSession(const std::string& master,
                                                        const PrepareSessionOptions& options) {
  // [mts:lab 02_chief_worker]
  Operation* const init_op = options.init_op;
  const InitFn& init_fn = options.init_fn;
  // On every error below the unique_ptr closes and frees the session; TensorFlow leaves the
  // half-prepared session open for the garbage collector.
  auto [session, restored] = RestoreCheckpoint(master, options);
  // 1. Restore, or else initialise: a restored model must not be overwritten by init_op.
  if (!restored) {
    if (init_op == nullptr && !init_fn && local_init_op_ == nullptr) {
      throw RuntimeError(
          "Model is not initialized and no init_op or init_fn or local_init_op was given");
    }
    // Beyond TensorFlow: never over a model the parameter servers hold for someone else.
    if (init_op != nullptr || init_fn) {
      CheckNothingLiveToInitialise(master, *session, options.reinitialize_live_model);
    }
    if (init_op != nullptr) session->Run(init_op, options.init_feed_dict);
    if (init_fn) init_fn(*session);
  }
  // 2. Local variables, once what they are computed from is set.
  const Readiness local = TryRunLocalInitOp(*session);
  if (!local.ready) {
    throw RuntimeError("Init operations did not make model ready for local_init.  Init op: " +
                       NameOf(init_op) + ", init fn: " + NameOf(init_fn) +
                       ", error: " + Explained(local.message, restored, options));
  }
  // 3. Everything set?
  const Readiness model = Ready(ready_op_, *session);
  if (!model.ready) {
    throw RuntimeError("Init operations did not make model ready.  Init op: " + NameOf(init_op) +
                       ", init fn: " + NameOf(init_fn) +
                       ", local_init_op: " + NameOf(local_init_op_) +
                       ", error: " + Explained(model.message, restored, options));
  }
  return std::move(session);
  // [mts:lab-end]
}
// [mts:prepare-session-end]

std::pair<std::unique_ptr<Session>, bool> SessionManager::RecoverSession(
    const std::string& master, const RecoverSessionOptions& options) {
  // [mts:lab 02_chief_worker]
  auto [session, restored] = RestoreCheckpoint(master, options);
  // Local init is tried even without a restore, as TensorFlow does.
  const Readiness local = TryRunLocalInitOp(*session);
  if (!restored) return {std::move(session), false};
  const std::string& source = !options.checkpoint_dir.empty()
                                  ? options.checkpoint_dir
                                  : options.checkpoint_filename_with_path;
  if (!local.ready) {
    MTS_LOG(INFO) << "Restoring model from " << source
                  << " did not make model ready for local init: " << local.message;
    return {std::move(session), false};
  }
  const Readiness model = Ready(ready_op_, *session);
  if (!model.ready) {
    MTS_LOG(INFO) << "Restoring model from " << source
                  << " did not make model ready: " << model.message;
    return {std::move(session), false};
  }
  MTS_LOG(INFO) << "Restored model from " << source;
  return {std::move(session), true};
  // [mts:lab-end]
}

// [mts:wait-for-session]
std::unique_ptr<Session> SessionManager::WaitForSession(const std::string& master,
                                                        double max_wait_secs) {
  // [mts:lab 02_chief_worker]
  const double start = clock_->NowSeconds();
  while (true) {
    // A new session per attempt: in a distributed job the old one may be on a master that
    // has since restarted.
    std::unique_ptr<Session> session = NewSession(master);
    std::optional<Readiness> model;  // Unset when local init could not run.
    const Readiness local = TryRunLocalInitOp(*session);
    if (local.ready) {
      model = Ready(ready_op_, *session);
      if (model->ready) return session;
    }
    // Session::Close never throws; TensorFlow ignores whatever a close raises here, and a
    // wrapper that can raise on Close would be swallowed the same way.
    session->Close();
    session.reset();

    const double remaining = std::max(0.0, max_wait_secs - (clock_->NowSeconds() - start));
    if (remaining - recovery_wait_secs_ < 0) {
      throw DeadlineExceededError("Session was not ready after waiting " + Secs(max_wait_secs) +
                                  " secs. Check that the chief is running and initialises or "
                                  "restores the model, or wait longer (max_wait_secs).");
    }
    MTS_LOG(INFO) << "Waiting for model to be ready.  Ready_for_local_init_op:  " << local.message
                  << ", ready: " << (model ? model->message : "None");
    // Beyond TensorFlow: say plainly what the worker is waiting for and for how long, so a
    // stuck worker (a chief that never came up, a variable nobody initialises) is obvious.
    const Readiness& blocking = model ? *model : local;
    std::ostringstream line;
    line << "Worker still waiting for ";
    if (!blocking.missing.empty()) {
      line << blocking.missing.size() << " uninitialized variable"
           << (blocking.missing.size() == 1 ? "" : "s") << ": " << Join(blocking.missing);
    } else {
      line << "the model: " << blocking.message;
    }
    line << "; next check in " << Secs(recovery_wait_secs_) << " secs, ";
    if (std::isinf(max_wait_secs)) {
      line << "no deadline.";
    } else {
      line << "giving up in " << Secs(remaining) << " secs.";
    }
    MTS_LOG(INFO) << line.str();
    Sleep(recovery_wait_secs_);
  }
  // [mts:lab-end]
}
// [mts:wait-for-session-end]

}  // namespace mts
