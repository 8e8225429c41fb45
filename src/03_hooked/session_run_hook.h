// session_run_hook.h: how code plugs into a monitored training loop (SessionRunHook), and
// the small values a hook exchanges with the loop around each step.
//
//   RecoverableSession     recovery calls AfterCreateSession again on the new session
//     CoordinatedSession
//       HookedSession      <-- calls BeforeRun / AfterRun around every Run
//         Chief / Worker
//           Session
//
// A hook's life, in the order MonitoredSession (stage 06) calls it; every method has an
// empty default:
//   1. Begin(): once, before any session exists, while the hook may still add ops.
//   2. AfterCreateSession(session, coord): after every creation, recoveries included, with
//      the raw session; the graph is finalized.
//   3. Each step: BeforeRun(context) returns SessionRunArgs to add to that very run; after
//      it succeeds, AfterRun(context, values) gets exactly those fetches' values. Either may
//      call context.RequestStop().
//   4. End(session): once, at a clean close only.
//
// Thread safety: all calls come from the thread that runs the loop.
//
// TensorFlow: tf.train.SessionRunHook, SessionRunArgs, SessionRunContext, SessionRunValues
// (tensorflow/python/training/session_run_hook.py).
#ifndef MTS_SRC_03_HOOKED_SESSION_RUN_HOOK_H_
#define MTS_SRC_03_HOOKED_SESSION_RUN_HOOK_H_

#include <optional>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "src/01_session/session_interface.h"

namespace mts {

class Coordinator;  // Stage 04; hooks only pass it along.

/// What a hook asks to add to a run: fetches, targets, feeds and options.
///
/// BeforeRun returns one by value every step, as TensorFlow's before_run does, so what it
/// holds is built anew each step. Its fetches are a vector that keeps its first four
/// elements inside the object (absl::InlinedVector, used like a std::vector): the global
/// step, a loss, a summary — what hooks ask for — then cost no heap allocation, where a
/// std::vector would allocate for its first element (see the performance appendix). Targets
/// and feeds are usually empty, and an empty std::vector or std::map allocates nothing.
struct SessionRunArgs {
  absl::InlinedVector<Output, 4> fetches;  ///< Tensors whose values the hook wants.
  std::vector<Operation*> targets;         ///< Ops to run for their effect.
  FeedDict feeds;                          ///< Tensors the hook feeds.
  RunOptions options;                      ///< Options merged into the run's (max trace level).
};

/// The run a hook is being called around: the caller's request and the raw session.
class SessionRunContext {
 public:
  /// A context for a run of `original_args` (the caller's fetches and feeds) on `session`.
  SessionRunContext(const SessionRunArgs& original_args, SessionInterface& session)
      : original_args_(&original_args), session_(session) {}
  /// A context for a run of the caller's `fetches`, `targets` and `feeds` on `session`,
  /// which must outlive it. They are copied into a SessionRunArgs only if a hook asks for
  /// original_args(): most never do, and a step should not pay for the copy.
  SessionRunContext(const std::vector<Output>& fetches, const std::vector<Operation*>& targets,
                    const FeedDict& feeds, SessionInterface& session)
      : fetches_(&fetches), targets_(&targets), feeds_(&feeds), session_(session) {}

  /// The caller's fetches, targets and feeds (options are not part of it).
  const SessionRunArgs& original_args() const {
    if (original_args_ != nullptr) return *original_args_;
    if (!copied_args_) {
      copied_args_ = SessionRunArgs{{fetches_->begin(), fetches_->end()}, *targets_, *feeds_, {}};
    }
    return *copied_args_;
  }
  /// The raw session: running it bypasses the hooks (use it sparingly).
  SessionInterface& session() const { return session_; }
  /// Asks the loop to stop after this run; it cannot be undone.
  void RequestStop() { stop_requested_ = true; }
  /// True once any hook asked to stop during this run.
  bool stop_requested() const { return stop_requested_; }

 private:
  // Either the caller's SessionRunArgs, or its three lists and, once asked for, their copy.
  const SessionRunArgs* original_args_ = nullptr;
  const std::vector<Output>* fetches_ = nullptr;
  const std::vector<Operation*>* targets_ = nullptr;
  const FeedDict* feeds_ = nullptr;
  mutable std::optional<SessionRunArgs> copied_args_;
  SessionInterface& session_;
  bool stop_requested_ = false;
};

/// What a hook gets back after the run: the values of its own fetches.
struct SessionRunValues {
  std::vector<Tensor> results;      ///< One per fetch the hook asked for, in its order.
  const RunOptions& options;        ///< The merged options the run used.
  const RunMetadata& run_metadata;  ///< Shared by every hook of the run.
};

/// Extends a monitored training loop. Override the moments you need; the rest do nothing.
class SessionRunHook {
 public:
  virtual ~SessionRunHook() = default;

  /// Called once before any session is created; may add ops to the (default) graph.
  virtual void Begin() {}
  /// Called after each session is created (and re-created after a recovery).
  /// `coord` is the Coordinator of the new session's threads, or null below stage 04.
  virtual void AfterCreateSession(SessionInterface& session, Coordinator* coord) {}
  /// Called before each run; returns what to add to it (default: nothing).
  virtual SessionRunArgs BeforeRun(SessionRunContext& run_context) { return {}; }
  /// Called after each successful run with the values of this hook's fetches.
  /// Not called if the run or any BeforeRun raised.
  virtual void AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) {}
  /// Called once at a clean close, with the session still open.
  virtual void End(SessionInterface& session) {}
};

}  // namespace mts

#endif  // MTS_SRC_03_HOOKED_SESSION_RUN_HOOK_H_
