#include "src/06_monitored/signal_stop_hook.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <string>

#include "src/platform/errors.h"
#include "src/platform/logging.h"

namespace mts {
namespace {

// The signals that ask for a graceful stop, and their names for the log.
constexpr int kSignals[] = {SIGTERM, SIGINT};
constexpr int kNumSignals = sizeof(kSignals) / sizeof(kSignals[0]);

// A handler may only touch lock-free atomics: a locked one could deadlock against the very
// thread it interrupted.
static_assert(std::atomic<int>::is_always_lock_free, "the signal flag must be lock-free");

// The first signal caught since the handlers were installed; 0 while none. The only thing
// the handler writes.
std::atomic<int> g_received{0};

// Set once a write to standard output failed with EPIPE (RequestStopForClosedStdout):
// stdout does not come back, so the request stands until the last hook goes.
std::atomic<bool> g_stdout_closed{false};

// [mts:ignored-signals]
// The signals Python ignores at start-up, so that a TensorFlow 1 program is never killed by
// them: SIGPIPE (a write to a pipe nobody reads: `train | head -3`) and SIGXFSZ (a write past
// the file-size limit, `ulimit -f`). Ignored, each becomes an error on the write that caused
// it (EPIPE, EFBIG), which the writer reports; by default each kills the process on the
// spot, before any final checkpoint. Handled like kSignals: only a default disposition is
// replaced, and the previous one comes back with the last hook.
constexpr int kIgnoredSignals[] = {SIGPIPE, SIGXFSZ};
constexpr int kNumIgnored = sizeof(kIgnoredSignals) / sizeof(kIgnoredSignals[0]);
struct sigaction g_previous_ignored[kNumIgnored];
bool g_ignored_here[kNumIgnored];
// [mts:ignored-signals-end]

// Hooks whose session exists: counted from a hook's first AfterCreateSession to its
// destruction. While there is none, the process is still creating its session (waiting for
// a parameter server, for the chief, for a checkpoint), nothing has been trained that a
// final checkpoint could keep, and the wait may have no end: a signal then stops the
// process at once (HandleStopSignal).
std::atomic<int> g_live_sessions{0};

// What the handler says, with write(2), when a signal comes before any session exists.
// Whole strings: a handler may not format.
constexpr char kStopWhileCreatingTerm[] =
    "Received SIGTERM while the session was still being created (waiting for a parameter "
    "server, the chief or a checkpoint, or restoring one): nothing was trained yet, so "
    "nothing is saved. Stopping now.\n";
constexpr char kStopWhileCreatingInt[] =
    "Received SIGINT while the session was still being created (waiting for a parameter "
    "server, the chief or a checkpoint, or restoring one): nothing was trained yet, so "
    "nothing is saved. Stopping now.\n";

// What each of kSignals did before the handlers were installed, and whether our handler
// replaced it (not when it was SIG_IGN). Written under g_mu *before* the handler is
// installed; the handler only reads them.
struct sigaction g_previous[kNumSignals];
bool g_replaced[kNumSignals];

std::mutex g_mu;
int g_users = 0;  // Hooks holding the handlers. Guarded by g_mu.

const char* SignalName(int sig) {
  switch (sig) {
    case SIGTERM:
      return "SIGTERM";
    case SIGINT:
      return "SIGINT";
    default:
      return "a signal";
  }
}

int IndexOf(int sig) {
  for (int i = 0; i < kNumSignals; ++i) {
    if (kSignals[i] == sig) return i;
  }
  return 0;  // Unreachable: the handler is only installed for kSignals.
}

// [mts:signal-handler]
// Async-signal-safe: atomics, write, sigaction and raise, nothing else.
extern "C" void HandleStopSignal(int sig) {
  if (g_live_sessions.load() == 0) {
    // No session yet: nothing to save, and the wait for one may never end. Say so, then
    // end as the signal would have without the hook.
    const bool term = sig == SIGTERM;
    const ssize_t ignored =
        write(STDERR_FILENO, term ? kStopWhileCreatingTerm : kStopWhileCreatingInt,
              (term ? sizeof(kStopWhileCreatingTerm) : sizeof(kStopWhileCreatingInt)) - 1);
    (void)ignored;  // Nothing to do if stderr is gone: the stop matters, not the line.
  } else {
    int none = 0;
    if (g_received.compare_exchange_strong(none, sig)) return;  // First: stop gracefully.
  }
  // Second (or no session): put back what was there before and raise again. The signal is
  // blocked while its handler runs, so it is delivered, with the old disposition, on return.
  sigaction(sig, &g_previous[IndexOf(sig)], nullptr);
  raise(sig);
}
// [mts:signal-handler-end]

bool IsIgnored(const struct sigaction& action) {
  return (action.sa_flags & SA_SIGINFO) == 0 && action.sa_handler == SIG_IGN;
}

void RestorePrevious(int count) {
  for (int i = 0; i < count; ++i) {
    if (g_replaced[i]) sigaction(kSignals[i], &g_previous[i], nullptr);
  }
}

// SIG_IGN for each of kIgnoredSignals still at its default disposition (a handler of the
// program's own is left alone).
void IgnorePipeAndFileSize() {
  struct sigaction ignore;
  std::memset(&ignore, 0, sizeof(ignore));
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  for (int i = 0; i < kNumIgnored; ++i) {
    g_ignored_here[i] = sigaction(kIgnoredSignals[i], nullptr, &g_previous_ignored[i]) == 0 &&
                        (g_previous_ignored[i].sa_flags & SA_SIGINFO) == 0 &&
                        g_previous_ignored[i].sa_handler == SIG_DFL &&
                        sigaction(kIgnoredSignals[i], &ignore, nullptr) == 0;
  }
}

void RestoreIgnored() {
  for (int i = 0; i < kNumIgnored; ++i) {
    if (g_ignored_here[i]) sigaction(kIgnoredSignals[i], &g_previous_ignored[i], nullptr);
  }
}

void InstallHandlers() {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_users > 0) {
    ++g_users;
    return;
  }
  g_received.store(0);
  IgnorePipeAndFileSize();
  for (int i = 0; i < kNumSignals; ++i) {
    g_replaced[i] = false;
    struct sigaction action;
    std::memset(&action, 0, sizeof(action));
    action.sa_handler = HandleStopSignal;
    sigemptyset(&action.sa_mask);
    // SA_RESTART: a read or write the signal interrupts (a checkpoint being written)
    // resumes instead of failing with EINTR.
    action.sa_flags = SA_RESTART;
    int failed = sigaction(kSignals[i], nullptr, &g_previous[i]);
    if (failed == 0 && IsIgnored(g_previous[i])) continue;  // The parent chose to ignore it.
    if (failed == 0) failed = sigaction(kSignals[i], &action, nullptr);
    if (failed != 0) {
      const int error = errno;
      RestorePrevious(i);
      RestoreIgnored();
      throw RuntimeError(std::string("sigaction failed for ") + SignalName(kSignals[i]) + ": " +
                         std::strerror(error));
    }
    g_replaced[i] = true;
  }
  g_users = 1;
}

void UninstallHandlers() {
  std::lock_guard<std::mutex> lock(g_mu);
  if (--g_users > 0) return;
  RestorePrevious(kNumSignals);
  RestoreIgnored();
  g_received.store(0);  // A later session starts without the old stop request.
  g_stdout_closed.store(false);
}

}  // namespace

SignalStopHook::~SignalStopHook() {
  if (live_) g_live_sessions.fetch_sub(1);
  if (installed_) UninstallHandlers();
}

void SignalStopHook::AfterCreateSession(SessionInterface& session, Coordinator* coord) {
  if (live_) return;  // A recovery's new session: already counted.
  live_ = true;
  g_live_sessions.fetch_add(1);
}

void SignalStopHook::Begin() {
  if (installed_) return;
  InstallHandlers();
  installed_ = true;
}

int SignalStopHook::ReceivedSignal() { return g_received.load(); }

void SignalStopHook::RequestStopForClosedStdout() { g_stdout_closed.store(true); }

SessionRunArgs SignalStopHook::BeforeRun(SessionRunContext& run_context) {
  StopIfSignalled(run_context);
  return {};
}

void SignalStopHook::AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) {
  StopIfSignalled(run_context);
}

// [mts:signal-stop]
void SignalStopHook::StopIfSignalled(SessionRunContext& run_context) {
  const int sig = g_received.load();
  if (sig == 0 && !g_stdout_closed.load()) return;
  // A run's context, and with it the request, lives for one run, and a recovery builds a
  // new HookedSession that has forgotten it: so the stop is requested on every run while
  // the flag is set. The log line is written once.
  run_context.RequestStop();
  if (logged_) return;
  logged_ = true;
  const char* saving = final_checkpoint_ ? "the final checkpoint is written at close."
                                         : "this task writes no checkpoint.";
  if (sig == 0) {
    MTS_LOG(INFO) << "Standard output is closed (a write to it failed: its reader, such as "
                     "head, has exited): stopping after this step; "
                  << saving;
    return;
  }
  MTS_LOG(INFO) << "Received " << SignalName(sig) << ": stopping after this step; " << saving
                << " Send " << SignalName(sig) << " again to stop at once.";
}
// [mts:signal-stop-end]

}  // namespace mts
