// wrapped_session.h: the base of every layer that wraps a session (TensorFlow's
// _WrappedSession).
//
//   RecoverableSession     each of these is a WrappedSession around the one below
//     CoordinatedSession
//       HookedSession      <-- this stage adds the base and the first wrapper
//         Chief / Worker   the creators make the raw session at the bottom
//           Session
//
// Run and graph() forward to the inner session. ShouldStop() is non-virtual: it is true
// after Close(), else asks the layer's CheckStop(), then the inner session if that is a
// wrapper too. Close() closes the inner session and forgets it, so a second Close does
// nothing; a preemption error raised while closing is logged and swallowed.
//
// Lifecycle: construct around an inner session (ownership moves in); Run any number of
// times; ShouldStop between runs; Close (or destroy) once.
//
// Thread safety: one thread runs and closes the stack.
//
// TensorFlow: _WrappedSession (tensorflow/python/training/monitored_session.py).
#ifndef MTS_SRC_03_HOOKED_WRAPPED_SESSION_H_
#define MTS_SRC_03_HOOKED_WRAPPED_SESSION_H_

#include <memory>
#include <vector>

#include "src/01_session/session_interface.h"

namespace mts {

/// A session that wraps another one; the base of every layer from HookedSession up.
class WrappedSession : public SessionInterface {
 public:
  /// Wraps `inner`, taking ownership. \pre inner is not null.
  explicit WrappedSession(std::unique_ptr<SessionInterface> inner);
  /// Closes the inner session if still open; never throws.
  ~WrappedSession() override;
  WrappedSession(const WrappedSession&) = delete;
  WrappedSession& operator=(const WrappedSession&) = delete;

  /// \cond
  using SessionInterface::Run;  // Keeps Run(output) and Run(op) beside the override.
  /// \endcond

  /// Forwards to the inner session.
  /// \throws RuntimeError "Attempted to use a closed Session." after Close().
  std::vector<Tensor> Run(const std::vector<Output>& fetches, const FeedDict& feeds = {},
                          const std::vector<Operation*>& targets = {},
                          const RunOptions& options = {},
                          RunMetadata* run_metadata = nullptr) override;

  /// The inner session's graph, or nullptr after Close().
  Graph* graph() const override;

  /// True if this layer wants to stop (CheckStop), or the layers below do
  /// (InnerShouldStop), or the session is closed. A raw session never asks to stop.
  bool ShouldStop();

  /// Closes the inner session and forgets it; a second call does nothing. Preemption
  /// errors while closing are logged and swallowed; other errors propagate, and the
  /// session counts as closed all the same.
  void Close() override;

  /// The session this one wraps, or nullptr after Close().
  SessionInterface* inner() const { return inner_.get(); }

 protected:
  /// This layer's own reason to stop; false unless a subclass says otherwise.
  virtual bool CheckStop() { return false; }

  /// Whether the layers below want to stop. The default asks the inner session if it is a
  /// wrapper (a raw session never asks); the recoverable layer overrides it to rebuild the
  /// stack on a preemption error instead of letting it escape. \pre inner() is not null.
  virtual bool InnerShouldStop();

  /// Replaces the inner session by `inner`, closing nothing: the recoverable layer installs
  /// a new stack here after it closed the old one. \pre inner is not null.
  void ResetInner(std::unique_ptr<SessionInterface> inner);

 private:
  std::unique_ptr<SessionInterface> inner_;
};

}  // namespace mts

#endif  // MTS_SRC_03_HOOKED_WRAPPED_SESSION_H_
