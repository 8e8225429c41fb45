// monitored_session_scope.h: Python's `with MonitoredSession(...) as sess:` block, as a
// function.
//
//   WithMonitoredSession   <-- this file: decides whether a training loop ended cleanly
//     MonitoredSession     and closes the session accordingly
//       RecoverableSession ... Session
//
// A training loop ends in one of three ways, and the session must be closed differently:
//   - The body returns, or the input ran out (exactly OutOfRangeError, raised by a dequeue
//     once its queue is closed and empty), or a step function called RequestStop (exactly
//     StopIteration): the end is clean. Every hook's End runs (the final checkpoint is
//     written there), then the session closes, and the function returns normally.
//   - The body raised anything else: the session closes without End (a model that just
//     failed must not be saved as final) and the error propagates.
// "Exactly" means the class itself, not a subclass, as in TensorFlow (which compares the
// exception type against a list).
//
// An error raised while closing replaces the body's, as in Python: for example, closing a
// session that the body already closed raises RuntimeError("Session is already closed. ...").
//
// Usage:
//   MonitoredSession session(creator, hooks);
//   WithMonitoredSession(session, [&](MonitoredSession& sess) {
//     while (!sess.ShouldStop()) sess.Run({}, {}, {train_op});
//   });
//
// TensorFlow: _MonitoredSession.__enter__ and __exit__
// (tensorflow/python/training/monitored_session.py).
#ifndef MTS_SRC_06_MONITORED_MONITORED_SESSION_SCOPE_H_
#define MTS_SRC_06_MONITORED_MONITORED_SESSION_SCOPE_H_

#include <exception>
#include <functional>

#include "src/06_monitored/monitored_session.h"

namespace mts {

/// True if `error` ends a training loop cleanly: exactly OutOfRangeError or StopIteration.
bool IsCleanStop(const std::exception_ptr& error);

/// Runs `body(session)`, then closes `session` as a `with` block would: cleanly (hooks'
/// End, then Close) when the body returns or raises exactly OutOfRangeError or
/// StopIteration, which are then swallowed; otherwise with CloseAfterError, and the body's
/// error propagates.
/// \throws RuntimeError "Session is already closed. ..." if the body closed the session.
/// \throws OpError as the body, End or Close throws it (an error of the close wins).
void WithMonitoredSession(MonitoredSession& session,
                          const std::function<void(MonitoredSession&)>& body);

}  // namespace mts

#endif  // MTS_SRC_06_MONITORED_MONITORED_SESSION_SCOPE_H_
