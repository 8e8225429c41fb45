// Starter for the stop-on-signal exercise.
#include <utility>

#include "chapters/04_coordinated/exercises/sigint_stop/sigint_stop.h"
#include "src/platform/errors.h"

namespace mts {

// [mts:exercise-todo]
// TODO: the contract is in the header: while the guard lives, each arrival of the signal
// makes a watcher thread call coord.RequestStop(); a handler may only do what is
// async-signal-safe (see `man 7 signal-safety`: no locks, no allocation), so it hands the
// news to the watcher through a pipe. The decisions are yours. What may the handler reach,
// given that it cannot be told which guard it serves? What must it preserve for the code
// it interrupted? What happens when the pipe is full, and is anything lost then? How does
// the watcher learn that it must end? In which order must the destructor undo things so
// that no handler can write into a closed (or reused) descriptor, and what does a failure
// half-way through the installation leave behind?

struct StopOnSignal::State {
  // TODO: what the guard owns; its destructor undoes it all.
};

StopOnSignal InstallStopOnSignal(Coordinator& coord, int signum) {
  // TODO: see above. This starter watches nothing.
  return StopOnSignal();
}
// [mts:exercise-todo-end]

StopOnSignal::StopOnSignal() = default;
StopOnSignal::StopOnSignal(std::unique_ptr<State> state) : state_(std::move(state)) {}
StopOnSignal::~StopOnSignal() = default;
StopOnSignal::StopOnSignal(StopOnSignal&& other) noexcept = default;
StopOnSignal& StopOnSignal::operator=(StopOnSignal&& other) noexcept = default;

}  // namespace mts
