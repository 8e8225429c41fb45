// step_context.h: what a step function gets from MonitoredSession::RunStepFn (TensorFlow's
// MonitoredSession.StepContext), and the StopIteration it raises to end the loop.
//
//   MonitoredSession       <-- RunStepFn builds a StepContext for each call of a step function
//     RecoverableSession   a preemption error inside the step function calls it again
//       CoordinatedSession RunWithHooks runs here: hooks and coordinator, no recovery
//         ...  Session     session() is this raw session: no hooks at all
//
// Thread safety: used by the thread that called RunStepFn, during that call only.
//
// TensorFlow: MonitoredSession.StepContext (tensorflow/python/training/monitored_session.py).
#ifndef MTS_SRC_06_MONITORED_STEP_CONTEXT_H_
#define MTS_SRC_06_MONITORED_STEP_CONTEXT_H_

#include <stdexcept>
#include <vector>

#include "src/01_session/session_interface.h"

namespace mts {

/// Raised by StepContext::RequestStop to end a training loop from inside a step function
/// (Python's StopIteration). WithMonitoredSession treats it as a clean end.
class StopIteration : public std::runtime_error {
 public:
  /// A stop request with `message`.
  explicit StopIteration(const std::string& message) : std::runtime_error(message) {}
};

/// The view of a monitored session that a step function gets.
class StepContext {
 public:
  /// A context over `raw_session` (no hooks) and `hooked_session` (hooks and coordinator).
  StepContext(SessionInterface& raw_session, SessionInterface& hooked_session)
      : raw_session_(raw_session), hooked_session_(hooked_session) {}

  /// The raw session: its runs skip every hook and every coordinator check. After a
  /// recovery the step function is called again with the new raw session.
  SessionInterface& session() const { return raw_session_; }

  /// Runs like MonitoredSession::Run: hooks' BeforeRun and AfterRun around one raw run.
  std::vector<Tensor> RunWithHooks(const std::vector<Output>& fetches,
                                   const FeedDict& feeds = {},
                                   const std::vector<Operation*>& targets = {},
                                   const RunOptions& options = {},
                                   RunMetadata* run_metadata = nullptr) {
    return hooked_session_.Run(fetches, feeds, targets, options, run_metadata);
  }

  /// Ends the loop: raises StopIteration, which leaves the step function at once. Called
  /// before RunWithHooks, no hook sees this step.
  /// \throws StopIteration "step_fn has requested the iterations to stop." always.
  [[noreturn]] void RequestStop() const {
    throw StopIteration("step_fn has requested the iterations to stop.");
  }

 private:
  SessionInterface& raw_session_;
  SessionInterface& hooked_session_;
};

}  // namespace mts

#endif  // MTS_SRC_06_MONITORED_STEP_CONTEXT_H_
