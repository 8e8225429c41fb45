// The stop-on-signal exercise of chapter 04: InstallStopOnSignal() and the guard's state,
// so that sigint_stop_test passes. The parts to write lie between the
// `[mts:lab sigint_stop]` markers; the comments outside them say what to decide.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "chapters/04_coordinated/exercises/sigint_stop/sigint_stop.h"
#include "src/platform/errors.h"

namespace mts {

// [mts:exercise-todo]
// TODO(student): the contract is in the header: while the guard lives, each arrival of the
// signal makes a watcher thread call coord.RequestStop(); a handler may only do what is
// async-signal-safe (see `man 7 signal-safety`: no locks, no allocation), so it hands the
// news to the watcher through a pipe. The decisions are yours. What may the handler reach,
// given that it cannot be told which guard it serves? What must it preserve for the code
// it interrupted? What happens when the pipe is full, and is anything lost then? How does
// the watcher learn that it must end? In which order must the destructor undo things so
// that no handler can write into a closed (or reused) descriptor, and what does a failure
// half-way through the installation leave behind?
// [mts:lab sigint_stop]
namespace {

// The only state a handler may touch must be reachable without locks: one lock-free atomic
// per signal number, holding the write end of that signal's pipe plus one (so that the
// zero every element starts with means "no pipe").
static_assert(std::atomic<int>::is_always_lock_free, "the handler needs lock-free atomics");
std::atomic<int> g_write_fd_plus_one[NSIG];

void WriteByteToPipe(int signum) {
  const int saved_errno = errno;  // The interrupted code may be about to read errno.
  const int fd = g_write_fd_plus_one[signum].load() - 1;
  if (fd >= 0) {
    const char byte = 's';
    // Ignored on purpose: a full pipe (EAGAIN, as the write end does not block) already
    // holds a pending stop, and a handler has no one to report to.
    const ssize_t ignored = write(fd, &byte, 1);
    (void)ignored;
  }
  errno = saved_errno;
}

[[noreturn]] void ThrowSystemError(const std::string& what) {
  throw RuntimeError("InstallStopOnSignal: " + what + ": " + std::strerror(errno));
}

}  // namespace
// [mts:lab-end]

struct StopOnSignal::State {
  // TODO(student): what the guard owns; its destructor undoes it all.
  // [mts:lab sigint_stop]
  int signum = 0;
  bool claimed = false;    // This guard owns g_write_fd_plus_one[signum].
  bool installed = false;  // old_action must be put back.
  struct sigaction old_action {};
  int read_fd = -1;
  int write_fd = -1;
  std::thread watcher;

  // Undoes whatever was set up, in the reverse order, so that no step can see a later one
  // half-undone. One window stays open: a handler already running on another thread when
  // the old action comes back may write its byte after the pipe is closed (the byte is
  // lost, harmlessly, unless the descriptor number was reused in between). The chapter's
  // exercise asks how to close it.
  ~State() {
    if (installed) sigaction(signum, &old_action, nullptr);
    if (claimed) g_write_fd_plus_one[signum].store(0);
    if (write_fd >= 0) close(write_fd);  // The watcher reads end-of-file and returns.
    if (watcher.joinable()) watcher.join();
    if (read_fd >= 0) close(read_fd);
  }
  // [mts:lab-end]
};

StopOnSignal InstallStopOnSignal(Coordinator& coord, int signum) {
  // TODO(student): see above.
  // [mts:lab sigint_stop]
  if (signum <= 0 || signum >= NSIG || signum == SIGKILL || signum == SIGSTOP) {
    throw ValueError("InstallStopOnSignal: signal " + std::to_string(signum) + " cannot be caught");
  }
  auto state =
      std::make_unique<StopOnSignal::State>();  // From here on, a throw undoes what was done.
  state->signum = signum;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) ThrowSystemError("pipe2");
  state->read_fd = fds[0];
  state->write_fd = fds[1];
  if (fcntl(state->write_fd, F_SETFL, O_NONBLOCK) != 0) ThrowSystemError("fcntl");

  int expected = 0;
  if (!g_write_fd_plus_one[signum].compare_exchange_strong(expected, state->write_fd + 1)) {
    throw RuntimeError("InstallStopOnSignal: signal " + std::to_string(signum) +
                       " is already watched by another guard");
  }
  state->claimed = true;

  // The watcher does in an ordinary thread what the handler may not: take the
  // Coordinator's mutex. It ends when the write end closes.
  try {
    state->watcher = std::thread([&coord, fd = state->read_fd] {
      char byte;
      while (true) {
        const ssize_t n = read(fd, &byte, 1);
        if (n == 1) {
          coord.RequestStop();
        } else if (n < 0 && errno == EINTR) {
          continue;
        } else {
          return;  // End-of-file: the guard is going away.
        }
      }
    });
  } catch (const std::system_error& e) {
    throw RuntimeError(std::string("InstallStopOnSignal: cannot start the watcher: ") + e.what());
  }

  struct sigaction action {};
  action.sa_handler = WriteByteToPipe;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // Interrupted system calls resume rather than fail.
  if (sigaction(signum, &action, &state->old_action) != 0) ThrowSystemError("sigaction");
  state->installed = true;
  return StopOnSignal(std::move(state));
  // [mts:lab-end]
}
// [mts:exercise-todo-end]

StopOnSignal::StopOnSignal() = default;
StopOnSignal::StopOnSignal(std::unique_ptr<State> state) : state_(std::move(state)) {}
StopOnSignal::~StopOnSignal() = default;
StopOnSignal::StopOnSignal(StopOnSignal&& other) noexcept = default;
StopOnSignal& StopOnSignal::operator=(StopOnSignal&& other) noexcept = default;

}  // namespace mts
