// session_manager.h: makes a session whose model is ready: restored or initialised (the
// chief), or waited for (a worker).
//
//   Chief / Worker   the creators (chief_session_creator.h, worker_session_creator.h)
//                    <-- call this file's PrepareSession / WaitForSession
//     Session        made fresh here, then restored, initialised, or checked
//
// PrepareSession (the chief) restores the latest sound checkpoint, or runs the init op and
// init_fn when there is none; WaitForSession (a worker) makes sessions until the ready op
// names no unset variable. Either then runs the local init op once the ready-for-local-init
// op allows it. Beyond TensorFlow, a chief restoring over a live model logs the steps it
// rolls back, a session made again on the ps processes it wrote the model on keeps that
// model, and a live model written by someone else is never initialised over.
//
// Lifecycle: construct with the scaffold's ready and local-init ops; call PrepareSession or WaitForSession
// once per session (re)creation; each returns a new session. TensorFlow's keyword arguments
// are the fields of PrepareSessionOptions and RecoverSessionOptions, with its defaults.
//
// Thread safety: the methods may be called from several threads at once (each makes its
// own session).
//
// Example (a chief):
//   PrepareSessionOptions prepare;
//   prepare.init_op = GlobalVariablesInitializer();
//   prepare.saver = saver.get();
//   prepare.checkpoint_dir = "/tmp/run";
//   std::unique_ptr<Session> session = manager.PrepareSession("", prepare);
//
// TensorFlow: tf.train.SessionManager (tensorflow/python/training/session_manager.py).
#ifndef MTS_SRC_02_CHIEF_WORKER_SESSION_MANAGER_H_
#define MTS_SRC_02_CHIEF_WORKER_SESSION_MANAGER_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/01_session/graph.h"
#include "src/01_session/session.h"
#include "src/02_chief_worker/saver.h"
#include "src/platform/clock.h"

namespace mts {

class Scaffold;

/// How a SessionManager checks and completes initialisation; TensorFlow's defaults.
struct SessionManagerOptions {
  /// Initialises local variables; run in every session once ready_for_local_init_op allows.
  /// Several ops are one Group({a, b}) (TensorFlow also takes a list).
  Operation* local_init_op = nullptr;
  /// Feeds for running local_init_op (empty: none).
  FeedDict local_init_feed_dict;
  /// Names what is not initialised (1-D string tensor); none: the model is always ready.
  std::optional<Output> ready_op;
  /// Names what local_init_op still needs; none: local init may always run.
  std::optional<Output> ready_for_local_init_op;
  /// The graph sessions are made on; null: the default graph when constructed.
  Graph* graph = nullptr;
  /// Seconds between polls while waiting for a model or a checkpoint.
  double recovery_wait_secs = 30;
  /// Options for running local_init_op.
  RunOptions local_init_run_options;
  /// Where waits go, and the clock of the sessions made (their traced runs' timings);
  /// null: RealClock().
  Clock* clock = nullptr;
};

/// The options both session creators use: the finalized `scaffold`'s local-init and
/// readiness ops and its graph, with waits on `clock` (null: RealClock()).
SessionManagerOptions SessionManagerOptionsFor(const Scaffold& scaffold, Clock* clock);

/// Where RecoverSession (and PrepareSession, first) restores from: TensorFlow's keyword
/// arguments of `recover_session`, with its defaults. Nothing given: nothing is restored.
struct RecoverSessionOptions {
  /// Restores the checkpoint; null: nothing is restored.
  Saver* saver = nullptr;
  /// Restore the latest checkpoint in this directory (its `checkpoint` state file's).
  std::string checkpoint_dir;
  /// Or restore exactly this checkpoint; give at most one of the two.
  std::string checkpoint_filename_with_path;
  /// Wait for a checkpoint to appear in checkpoint_dir when there is none yet.
  bool wait_for_checkpoint = false;
  /// How long to wait for one, in seconds.
  double max_wait_secs = 7200;
};

/// What PrepareSession takes: where to restore from (the fields RecoverSession takes), and
/// how to initialise when nothing was restored. TensorFlow's keyword arguments of
/// `prepare_session`, with its defaults.
struct PrepareSessionOptions : RecoverSessionOptions {
  /// Initialises the model when nothing was restored; null: none.
  Operation* init_op = nullptr;
  /// What init_op is run with.
  FeedDict init_feed_dict;
  /// Called after init_op when nothing was restored (a Scaffold's BoundInitFn()); empty:
  /// none.
  std::function<void(SessionInterface&)> init_fn;
  /// Beyond TensorFlow: initialise even when the parameter servers already hold a model
  /// this manager did not write (another job's, or this job's before its chief restarted),
  /// throwing that model away. False: PrepareSession refuses instead (see there).
  bool reinitialize_live_model = false;
};

/// Makes sessions whose models are ready (TensorFlow's SessionManager).
class SessionManager {
 public:
  /// An init function as the manager calls it (a Scaffold's BoundInitFn()).
  using InitFn = std::function<void(SessionInterface&)>;

  /// \throws ValueError if ready_for_local_init_op is given without local_init_op.
  explicit SessionManager(SessionManagerOptions options = {});

  // [mts:lab-contract-session-manager]
  /// The chief's path. Makes a session on `master`; restores it from
  /// `options.checkpoint_filename_with_path`, or from the latest checkpoint in
  /// `options.checkpoint_dir` (waiting up to `max_wait_secs` for one to appear if
  /// `wait_for_checkpoint`). Beyond TensorFlow: if that latest checkpoint fails its
  /// checksums, the newest earlier one the state file lists that passes is restored
  /// instead, with a warning naming both. If nothing was restored runs `init_op` with
  /// `init_feed_dict`, then `init_fn`. Then runs the local init op (once the model is ready
  /// for it) and checks the model is ready. `PrepareSession(master)`, with no options,
  /// restores nothing and initialises with the local init op alone.
  /// \throws ValueError if both a directory and a file are given ("Can not provide both
  ///   checkpoint_dir and checkpoint_filename_with_path."), before any session is made.
  /// \throws RuntimeError when nothing was restored and there is nothing to initialise with
  ///   (`Model is not initialized and no init_op or init_fn or local_init_op was given`);
  ///   when the local init op may not run (`Init operations did not make model ready for
  ///   local_init.  Init op: NAME, init fn: FN, error: WHY`); when the ready op still names
  ///   variables (`Init operations did not make model ready.  Init op: NAME, init fn: FN,
  ///   local_init_op: NAME, error: WHY`). FN is `<init_fn>` or `None`. After a restore
  ///   both add (beyond TensorFlow) that init_op did not run, and that what every session
  ///   needs belongs in local_init_op and every global variable in the saver.
  /// \throws DataLossError naming every checkpoint tried when all the state file lists
  ///   fail their checksums (or the one given by `checkpoint_filename_with_path` does).
  /// \throws FailedPreconditionError when nothing was restored and the parameter servers of
  ///   a remote `master` already hold some of the global variables, written by someone other
  ///   than this manager (beyond TensorFlow): the message names the servers, the global step
  ///   they hold and what to do (`reinitialize_live_model` to overwrite them).
  /// \throws OpError as restoring, init_op or init_fn raise it.
  /// Beyond TensorFlow: when the servers of `master` are the very processes this manager
  /// last restored or initialised the model on (their incarnations unchanged: a recovery
  /// after a slow parameter server, not a restarted one) and the model is ready, it is
  /// used as it is, neither restored nor initialised, so the steps trained since the last
  /// checkpoint are kept.
  /// After any error the session made is closed and destroyed (TensorFlow leaves it open).
  std::unique_ptr<Session> PrepareSession(const std::string& master,
                                          const PrepareSessionOptions& options = {});

  /// Makes a session on `master` and restores it as `options` say if it can, never
  /// initialising it; then tries the local init op. \returns the session and whether it
  /// was restored *and* is ready (a failed local init or readiness check is logged, not
  /// raised).
  /// \throws ValueError when both a directory and a file are given.
  /// \throws OpError as restoring raises it.
  std::pair<std::unique_ptr<Session>, bool> RecoverSession(
      const std::string& master, const RecoverSessionOptions& options = {});

  /// A worker's path. Makes a new session, runs the local init op when allowed and checks the
  /// model is ready; if not, closes it, logs what is missing and how long remains, sleeps
  /// recovery_wait_secs and tries again with a new session. There is always one attempt.
  /// \throws DeadlineExceededError `Session was not ready after waiting N secs. Check ...`
  ///   (what to do follows TensorFlow's words) once the
  ///   next sleep would pass `max_wait_secs` (infinity: wait forever).
  /// \throws OpError as the ready ops raise it, except a FailedPreconditionError about an
  ///   uninitialized value (that means "not ready").
  std::unique_ptr<Session> WaitForSession(
      const std::string& master, double max_wait_secs = std::numeric_limits<double>::infinity());
  // [mts:lab-contract-session-manager-end]

  /// The graph sessions are made on.
  Graph* graph() const { return graph_; }

 private:
  // The outcome of one readiness check. `message` is "None" when ready; `missing` names the
  // unset variables when the ready op could say (not when it raised).
  struct Readiness {
    bool ready = true;
    std::string message = "None";
    std::vector<std::string> missing;
  };

  // A model found already initialised on a remote master before a restore: the chief
  // restarted while the parameter servers kept the model the workers train.
  struct LiveModel {
    std::optional<int64_t> step;  // Its global step, if the graph has one.
  };

  // session_manager_live_model.cc: a model that outlives this manager's sessions.
  // True if `session`'s servers are those this manager last wrote the model on, unchanged,
  // and the model there is ready: it is then used as it is (logged).
  bool KeepsModelItWrote(const std::string& master, Session& session) const;
  // Remembers that this manager is about to write the model on `session`'s servers.
  void NoteModelWritten(const std::string& master, const Session& session) const;
  // Before init_op and init_fn: throws FailedPreconditionError if `session`'s servers hold
  // global variables someone else wrote, unless `reinitialize` (then logs a warning).
  // Then notes the write.
  void CheckNothingLiveToInitialise(const std::string& master, Session& session,
                                    bool reinitialize) const;

  std::unique_ptr<Session> NewSession(const std::string& master) const;
  // The live model on `master` as `session` sees it, or nullopt when there is none: the
  // master is in process (""), no ready op says, or some global variable is unset.
  std::optional<LiveModel> LiveModelOn(const std::string& master, Session& session) const;
  // Logs a warning that restoring `restored_path` (from `source`) rolled `live` back, naming
  // both steps and the steps lost; says nothing when the live model was not ahead of the
  // checkpoint.
  void WarnOfRollback(const LiveModel& live, const std::string& master, const std::string& source,
                      const std::string& restored_path, Session& session) const;
  // A new session on `master`, restored as `options` say if it can; true if restored. From
  // a directory it restores the checkpoint LatestSoundCheckpoint chooses
  // (checkpoint/latest_sound_checkpoint.h).
  std::pair<std::unique_ptr<Session>, bool> RestoreCheckpoint(
      const std::string& master, const RecoverSessionOptions& options) const;
  static Readiness Ready(const std::optional<Output>& op, Session& session);
  Readiness TryRunLocalInitOp(Session& session) const;
  void Sleep(double secs) const;

  Operation* local_init_op_;
  std::optional<Output> ready_op_;
  std::optional<Output> ready_for_local_init_op_;
  Graph* graph_;
  double recovery_wait_secs_;
  RunOptions local_init_run_options_;
  FeedDict local_init_feed_dict_;
  Clock* clock_;
  mutable std::mutex written_mu_;
  // Per master: Session::variables_incarnation() of the servers this manager last restored
  // or initialised the model on. Guarded by written_mu_.
  mutable std::map<std::string, std::string> written_;
};

}  // namespace mts

#endif  // MTS_SRC_02_CHIEF_WORKER_SESSION_MANAGER_H_
