// hooked_session.h: calls every hook's BeforeRun and AfterRun around each run, in one run.
//
//   RecoverableSession
//     CoordinatedSession
//       HookedSession      <-- this file: hooks see every step that really ran
//         Chief / Worker   the raw session it wraps was made by a session creator
//           Session
//
// Each Run is exactly one run of the raw session: the fetches, targets and feeds every
// hook's BeforeRun adds are merged with the caller's; after it, each hook gets the values of
// its own fetches and the caller exactly what it asked for. A tensor fed twice (by two
// hooks, or a hook and the caller) raises RuntimeError before anything runs. A hook that
// requests a stop makes ShouldStop() true from then on.
//
// Lifecycle: made by MonitoredSession (stage 06) around each new raw session, with the
// same hook objects each time; Run; ShouldStop; Close (from WrappedSession).
//
// Thread safety: one thread runs it, as for every layer.
//
// TensorFlow: _HookedSession (tensorflow/python/training/monitored_session.py).
#ifndef MTS_SRC_03_HOOKED_HOOKED_SESSION_H_
#define MTS_SRC_03_HOOKED_HOOKED_SESSION_H_

#include <memory>
#include <vector>

#include "src/03_hooked/session_run_hook.h"
#include "src/03_hooked/wrapped_session.h"

namespace mts {

/// A session that calls its hooks around every run.
class HookedSession : public WrappedSession {
 public:
  /// Wraps the raw session `session`, calling `hooks` in list order.
  HookedSession(std::unique_ptr<SessionInterface> session,
                std::vector<std::shared_ptr<SessionRunHook>> hooks);

  /// \cond
  using WrappedSession::Run;
  /// \endcond

  // [mts:lab-contract-hooked-run]
  /// Runs `fetches` together with what every hook asked for, in one run of the inner
  /// session, then hands each hook its results; writes the caller's fetches, and only
  /// those, into `*outputs` (what it held before is dropped).
  /// \throws RuntimeError "Run called even after should_stop requested. ..." (beyond
  ///   TensorFlow, the message goes on to say what to check) once a hook has requested a
  ///   stop (or after Close); RuntimeError("Same tensor is fed by two hooks.
  ///   Conflict(s): [...]") or ("... by a SessionRunHook and user. ...") before running;
  ///   whatever a hook or the run raises, in which case no later AfterRun is called and a
  ///   stop requested in this run is not recorded (as in TensorFlow). When the run itself
  ///   raises an OpError (other than OutOfRange or a preemption error) and the hooks added
  ///   fetches, a warning names them first (beyond TensorFlow): the error may be theirs.
  void Run(const std::vector<Output>& fetches, const FeedDict& feeds,
           const std::vector<Operation*>& targets, const RunOptions& options,
           RunMetadata* run_metadata, std::vector<Tensor>* outputs) override;
  /// The same run, returning the caller's fetches in a new vector.
  std::vector<Tensor> Run(const std::vector<Output>& fetches, const FeedDict& feeds = {},
                          const std::vector<Operation*>& targets = {},
                          const RunOptions& options = {},
                          RunMetadata* run_metadata = nullptr) override;
  // [mts:lab-contract-hooked-run-end]

  /// The hooks, in call order.
  const std::vector<std::shared_ptr<SessionRunHook>>& hooks() const { return hooks_; }

 protected:
  /// True once a hook has requested a stop.
  bool CheckStop() override { return should_stop_; }

 private:
  // The lists a run builds, kept for the next run so that their storage is reused: at
  // steady state a step allocates none of them (see the performance appendix).
  struct RunLists {
    std::vector<Output> fetches;       // The caller's, then each hook's.
    std::vector<Operation*> targets;   // Likewise.
    std::vector<size_t> offsets;       // Where each hook's fetches begin in `fetches`...
    std::vector<size_t> counts;        // ... and how many there are.
    std::vector<Tensor> all_results;   // The inner run's values, one per entry of `fetches`.
    std::vector<Tensor> hook_results;  // Lent to each hook's SessionRunValues in turn.
  };

  // [mts:lab-contract-hooked-steps]
  // The steps of a Run with hooks, in the order Run takes them (hooked_session.cc); the
  // inner run comes between MergeFeeds and HandBack.
  // Asks every hook what it wants added to the run: lays its fetches and targets after those
  // already in `lists`, noting where its fetches begin and how many there are, and merges
  // its options into `options`. Returns the hooks' feeds; throws RuntimeError on a tensor
  // fed by two hooks as soon as the second has answered.
  FeedDict AskHooks(SessionRunContext& context, RunLists& lists, RunOptions& options) const;
  // The feeds of the run: the caller's `feeds` if the hooks feed nothing, else both, written
  // into `*combined`. Throws RuntimeError on a tensor fed by a hook and the caller.
  static const FeedDict& MergeFeeds(const FeedDict& feeds, const FeedDict& hook_feeds,
                                    FeedDict* combined);
  // Calls every hook's AfterRun with the values of its own fetches, in list order.
  void HandBack(SessionRunContext& context, const RunOptions& options, const RunMetadata& metadata,
                RunLists& lists) const;
  // [mts:lab-contract-hooked-steps-end]

  std::vector<std::shared_ptr<SessionRunHook>> hooks_;
  bool should_stop_ = false;               // Sticky: set from a run's context, never cleared.
  std::unique_ptr<RunLists> spare_lists_;  // The last run's, or null (none yet, or in use).
};

}  // namespace mts

#endif  // MTS_SRC_03_HOOKED_HOOKED_SESSION_H_
