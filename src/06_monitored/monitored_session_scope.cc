#include "src/06_monitored/monitored_session_scope.h"

#include <typeinfo>

#include "src/platform/errors.h"
#include "src/06_monitored/step_context.h"

namespace mts {

bool IsCleanStop(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const OutOfRangeError& e) {
    return typeid(e) == typeid(OutOfRangeError);  // A subclass is not a clean end.
  } catch (const StopIteration& e) {
    return typeid(e) == typeid(StopIteration);
  } catch (...) {
    return false;
  }
}

// [mts:with-monitored-session]
void WithMonitoredSession(MonitoredSession& session,
                          const std::function<void(MonitoredSession&)>& body) {
  std::exception_ptr error;
  try {
    body(session);
  } catch (...) {
    error = std::current_exception();
  }
  if (error == nullptr || IsCleanStop(error)) {
    session.Close();  // Hooks' End, then the stack; the clean stop is swallowed.
    return;
  }
  session.CloseAfterError();  // No End; an error here replaces the body's.
  std::rethrow_exception(error);
}
// [mts:with-monitored-session-end]

}  // namespace mts
