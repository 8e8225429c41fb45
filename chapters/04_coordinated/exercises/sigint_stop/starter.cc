// Starter for the stop-on-signal exercise.
#include "chapters/04_coordinated/exercises/sigint_stop/sigint_stop.h"

#include <utility>

#include "src/platform/errors.h"

namespace mts {

// [mts:exercise-todo]
// TODO: what the handler and the guard share. A handler can only read globals, so keep,
// per signal number, the write end of that signal's pipe in a lock-free std::atomic<int>.
// Write the handler: save errno, write(2) one byte to the pipe if there is one, restore
// errno.

struct StopOnSignal::State {
  // TODO: the signal number, the pipe's two ends, the old sigaction, the watcher thread.
  // The destructor undoes everything, in an order that never leaves the handler writing
  // into a closed pipe: restore the old handler, forget the pipe in the global, close the
  // write end (the watcher then reads end-of-file and returns), join the watcher, close
  // the read end.
};

StopOnSignal InstallStopOnSignal(Coordinator& coord, int signum) {
  // TODO: refuse signals that cannot be caught (ValueError) and a signal already watched
  // (RuntimeError); make the pipe (pipe2 with O_CLOEXEC; the write end O_NONBLOCK, so a
  // handler never blocks on a full pipe); start the watcher thread, which reads bytes
  // until end-of-file and calls coord.RequestStop() for each; then sigaction(signum, ...)
  // with SA_RESTART, keeping the old action. If any step fails, undo the ones before it.
  return StopOnSignal();
}
// [mts:exercise-todo-end]

StopOnSignal::StopOnSignal() = default;
StopOnSignal::StopOnSignal(std::unique_ptr<State> state) : state_(std::move(state)) {}
StopOnSignal::~StopOnSignal() = default;
StopOnSignal::StopOnSignal(StopOnSignal&& other) noexcept = default;
StopOnSignal& StopOnSignal::operator=(StopOnSignal&& other) noexcept = default;

}  // namespace mts
