// monitored_session_scope.h: Python's `with MonitoredSession(...) as sess:` block, as a
// function.
//
// Stage 06, around a MonitoredSession. The end is clean when the body returns or raises
// exactly OutOfRangeError or StopIteration (the class itself, not a subclass): every hook's
// End runs, the session closes, and the function returns. Anything else the body raises
// closes the session without End and propagates. An error raised while closing replaces
// the body's.
//
// Usage: WithMonitoredSession(session, [&](MonitoredSession& sess) {
//          while (!sess.ShouldStop()) sess.Run({}, {}, {train_op}); });
//
// TensorFlow: _MonitoredSession.__enter__ and __exit__ (monitored_session.py).
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
