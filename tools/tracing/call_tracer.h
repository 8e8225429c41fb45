// call_tracer.h: records the calls that pass through the layers during a run, and draws them.
//
//   caller ──Run──> HookedSession ──BeforeRun──> hooks
//                                 ──Run───────> TracingSession ──> Session
//                                 ──AfterRun──> hooks
//
// A chapter's sequence diagram should show what the code does, not what its author believes
// it does. CallTracer records calls as they happen, and two small adapters feed it without
// touching the classes under study: TracingHook is a SessionRunHook that records each of its
// methods, and TracingSession is a WrappedSession that records each Run passing through it
// to the session below. Put a TracingSession between any two layers and a TracingHook
// among the hooks, run one step, and `ToGraphviz()` draws the sequence that really occurred.
//
// Thread safety: CallTracer is thread-safe; the adapters add no state of their own.
//
// TensorFlow: no counterpart; this is a teaching instrument.
#ifndef MTS_TOOLS_TRACING_CALL_TRACER_H_
#define MTS_TOOLS_TRACING_CALL_TRACER_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "src/03_hooked/session_run_hook.h"
#include "src/03_hooked/wrapped_session.h"

namespace mts {

/// An ordered record of calls between named participants.
class CallTracer {
 public:
  /// One recorded call or return.
  struct Event {
    std::string from;        ///< The caller ("caller", "HookedSession").
    std::string to;          ///< The callee.
    std::string method;      ///< "Run", "BeforeRun", ...
    bool is_return = false;  ///< True for the return of the call.
    std::string outcome;     ///< What a return brought back ("raised CancelledError"); "": none.
  };

  /// Gives `name` the next column now, before any event names it. The diagram's columns are
  /// the participants added this way, in that order, then the others in order of first
  /// appearance; a picture whose first event is not between its two leftmost parties uses
  /// this to keep the arrows short. Adding a name twice has no further effect.
  void AddParticipant(const std::string& name);

  /// Records that `from` calls `method` on `to`.
  void Call(const std::string& from, const std::string& to, const std::string& method);
  /// Records that the call `method` on `to` returns to `from`, with `outcome` (what it
  /// returned or raised, drawn instead of "returns"; "": just that it returned).
  void Return(const std::string& from, const std::string& to, const std::string& method,
              const std::string& outcome = "");

  /// Everything recorded, in order.
  std::vector<Event> events() const;
  /// Forgets everything recorded (the participants added too).
  void Clear();
  /// One line per event: "caller -> HookedSession: Run" / "caller <- HookedSession: Run",
  /// a return's outcome after it in parentheses.
  std::string ToText() const;
  /// A graphviz digraph drawing the events as a sequence diagram: one lifeline per
  /// participant, in order of first appearance, one arrow per event from top to bottom.
  std::string ToGraphviz() const;

 private:
  mutable std::mutex mu_;
  std::vector<Event> events_;              // Guarded by mu_.
  std::vector<std::string> participants_;  // Guarded by mu_; those added, in order.
};

/// A hook that records its calls in a tracer, as participant `name`, called by `caller`.
class TracingHook : public SessionRunHook {
 public:
  /// Records into `tracer` as `name`; calls come from `caller` (the hooked layer).
  TracingHook(std::shared_ptr<CallTracer> tracer, std::string name,
              std::string caller = "HookedSession");
  /// Records Begin.
  void Begin() override;
  /// Records AfterCreateSession.
  void AfterCreateSession(SessionInterface& session, Coordinator* coord) override;
  /// Records BeforeRun; requests nothing.
  SessionRunArgs BeforeRun(SessionRunContext& run_context) override;
  /// Records AfterRun.
  void AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) override;
  /// Records End.
  void End(SessionInterface& session) override;

 private:
  void Record(const std::string& method);
  std::shared_ptr<CallTracer> tracer_;
  std::string name_;
  std::string caller_;
};

/// A pass-through layer that records each Run on its way to the session below, as a call
/// from `caller` to `name`.
class TracingSession : public WrappedSession {
 public:
  /// Wraps `inner`; records as `name`, called by `caller`.
  TracingSession(std::unique_ptr<SessionInterface> inner, std::shared_ptr<CallTracer> tracer,
                 std::string name, std::string caller);
  /// \cond
  using WrappedSession::Run;
  /// \endcond
  /// Records the call, forwards it, records the return (when it throws, with the outcome
  /// "threw").
  std::vector<Tensor> Run(const std::vector<Output>& fetches, const FeedDict& feeds = {},
                          const std::vector<Operation*>& targets = {},
                          const RunOptions& options = {},
                          RunMetadata* run_metadata = nullptr) override;

 private:
  std::shared_ptr<CallTracer> tracer_;
  std::string name_;
  std::string caller_;
};

}  // namespace mts

#endif  // MTS_TOOLS_TRACING_CALL_TRACER_H_
