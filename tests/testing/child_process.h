// child_process.h: a program a test starts, reads line by line, signals and reaps.
//
//   tests that kill what they test   saver_crash_test (SIGKILL mid-save), the signal tests
//     ChildProcess                   (SIGTERM mid-training): the program under test runs
//                                    as a real process, since a signal or a kill is only
//                                    honest against one
//
// The child's stdout comes back through a pipe, so a test can wait for the line that says
// the child reached the moment it wants to strike (a save started, a step logged) instead of
// sleeping. The child starts with SIGTERM, SIGINT, SIGPIPE and SIGXFSZ at their default
// dispositions even when the test inherited them ignored (a background job's, a runner's),
// or a signal test could not fail. A test can close the pipe (as `| head` does when it has
// its lines), limit the size of the files the child writes (as `ulimit -f` does), and send
// its stderr into the pipe too (`2>&1`), to wait for a line it logs.
// The destructor SIGKILLs and reaps a child still running, so no test leaves one behind.
//
// Thread safety: one thread per ChildProcess.
#ifndef MTS_TESTS_TESTING_CHILD_PROCESS_H_
#define MTS_TESTS_TESTING_CHILD_PROCESS_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mts {

/// What a child starts with beyond its arguments.
struct ChildProcessOptions {
  /// The most bytes a file it writes may hold (RLIMIT_FSIZE, `ulimit -f`); none if unset.
  std::optional<uint64_t> file_size_limit;
  /// Its stderr goes into the same pipe as its stdout (`2>&1`), so a test can wait for a
  /// line the program logs; the stderr path given is then not used.
  bool stderr_to_stdout = false;
};

/// A started program and the read end of its stdout.
class ChildProcess {
 public:
  /// Starts `binary` with `args`. Its stderr goes to `stderr_path`, or stays the test's if
  /// empty. \throws std::runtime_error if it cannot be started.
  ChildProcess(const std::string& binary, const std::vector<std::string>& args,
               const std::string& stderr_path = "", const ChildProcessOptions& options = {});
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  /// SIGKILLs and reaps the child if it is still running.
  ~ChildProcess();

  /// The next line the child printed, without its newline; "" once its stdout is closed.
  std::string ReadLine();
  /// Reads lines until one contains `text` and returns it (without its newline); nullopt
  /// if the child closed its stdout first.
  std::optional<std::string> ReadLineContaining(const std::string& text);
  /// Reads until the child closes its stdout; returns what was not read yet.
  std::string ReadRest();
  /// Everything read from the child's stdout so far, whichever call read it.
  const std::string& output() const { return output_; }
  /// Closes the read end of the child's stdout, as `head` does once it has its lines: the
  /// child's next write to it fails (EPIPE, or SIGPIPE by default). Reads return "" after.
  void CloseStdout();
  /// The child's process id; -1 once it was reaped.
  pid_t pid() const { return pid_; }
  /// Sends `sig` to the child.
  void Signal(int sig);
  /// Waits for the child to end and returns its wait status (see waitpid).
  int Wait();
  /// SIGKILL, then reap. True if the child died of that signal, false if it had ended first.
  bool Kill();

 private:
  // Reads one chunk of stdout into buffer_ and output_; false at its end.
  bool Fill();

  pid_t pid_ = -1;
  int out_ = -1;
  std::string buffer_;  // Read but not yet returned.
  std::string output_;  // Everything read.
};

/// The processes whose parent is `parent` now (read from /proc), e.g. the tasks a launcher
/// started.
std::vector<pid_t> ChildrenOf(pid_t parent);

/// The arguments process `pid` was started with, its program first (`/proc/<pid>/cmdline`);
/// empty once it is gone.
std::vector<std::string> ArgumentsOf(pid_t pid);

/// A process that is not a child of ours, watched through a pidfd: it can tell that the
/// process ended (even as a zombie nobody reaps) and can never name another process that
/// gets the pid later.
class ProcessWatch {
 public:
  /// Watches `pid`. 	hrows std::runtime_error if there is no such process.
  explicit ProcessWatch(pid_t pid);
  ProcessWatch(ProcessWatch&& other) noexcept;
  ProcessWatch(const ProcessWatch&) = delete;
  ProcessWatch& operator=(const ProcessWatch&) = delete;
  ~ProcessWatch();

  /// Whether the process has ended, waiting for that at most `timeout_ms` (0: not at all).
  bool Ended(int timeout_ms) const;
  /// The pid watched.
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_;
  int fd_;
};

/// The path of `path` (e.g. "examples/train_spirals") in the runfiles of the running
/// program: a Bazel test's ($TEST_SRCDIR), a `bazel run` program's (`<program>.runfiles`), or
/// else beside it in bazel-bin (a program a genrule runs); `path` itself if none has it.
std::string RunfilePath(const std::string& path);

}  // namespace mts

#endif  // MTS_TESTS_TESTING_CHILD_PROCESS_H_
