#include "tests/testing/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

extern char** environ;

namespace mts {

namespace {

// The signals a child starts with at their default disposition, whatever the test has.
constexpr int kDefaultSignals[] = {SIGTERM, SIGINT, SIGPIPE, SIGXFSZ};

// fork and exec, for what posix_spawn cannot set up (a resource limit). Between the two only
// async-signal-safe calls: the test may have other threads. Returns the child's pid.
pid_t ForkExec(const std::string& binary, char* const* argv, int out, int unused,
               const std::string& stderr_path, const ChildProcessOptions& options) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::dup2(out, 1);
  if (options.stderr_to_stdout) ::dup2(out, 2);
  ::close(out);
  ::close(unused);
  if (!stderr_path.empty() && !options.stderr_to_stdout) {
    const int err = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (err >= 0) ::dup2(err, 2);
  }
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int sig : kDefaultSignals) ::sigaction(sig, &default_action, nullptr);
  rlimit limit{};
  ::getrlimit(RLIMIT_FSIZE, &limit);
  if (options.file_size_limit) {
    limit.rlim_cur = static_cast<rlim_t>(*options.file_size_limit);
    ::setrlimit(RLIMIT_FSIZE, &limit);
  }
  ::execv(binary.c_str(), argv);
  ::_exit(127);
}

}  // namespace

ChildProcess::ChildProcess(const std::string& binary, const std::vector<std::string>& args,
                           const std::string& stderr_path, const ChildProcessOptions& options) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  if (options.file_size_limit) {
    std::vector<char*> argv = {const_cast<char*>(binary.c_str())};
    for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    pid_ = ForkExec(binary, argv.data(), fds[1], fds[0], stderr_path, options);
    ::close(fds[1]);
    if (pid_ < 0) {
      ::close(fds[0]);
      throw std::runtime_error("fork for " + binary + " failed");
    }
    out_ = fds[0];
    return;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  if (options.stderr_to_stdout) posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  if (!stderr_path.empty() && !options.stderr_to_stdout) {
    posix_spawn_file_actions_addopen(&actions, 2, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
  }
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int sig : kDefaultSignals) sigaddset(&defaults, sig);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> argv = {const_cast<char*>(binary.c_str())};
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  const int error = ::posix_spawn(&pid_, binary.c_str(), &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(fds[1]);
  if (error != 0) {
    ::close(fds[0]);
    pid_ = -1;
    throw std::runtime_error("posix_spawn " + binary + " failed");
  }
  out_ = fds[0];
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0) Kill();
  CloseStdout();
}

void ChildProcess::CloseStdout() {
  if (out_ >= 0) ::close(out_);
  out_ = -1;
}

bool ChildProcess::Fill() {
  if (out_ < 0) return false;
  char chunk[4096];
  const ssize_t n = ::read(out_, chunk, sizeof(chunk));
  if (n <= 0) return false;
  buffer_.append(chunk, static_cast<size_t>(n));
  output_.append(chunk, static_cast<size_t>(n));
  return true;
}

std::string ChildProcess::ReadLine() {
  for (;;) {
    const size_t newline = buffer_.find('\n');
    if (newline != std::string::npos) {
      std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      return line;
    }
    if (!Fill()) return "";
  }
}

std::optional<std::string> ChildProcess::ReadLineContaining(const std::string& text) {
  for (;;) {
    const size_t newline = buffer_.find('\n');
    if (newline == std::string::npos) {
      if (!Fill()) return std::nullopt;
      continue;
    }
    std::string line = buffer_.substr(0, newline);
    buffer_.erase(0, newline + 1);
    if (line.find(text) != std::string::npos) return line;
  }
}

std::string ChildProcess::ReadRest() {
  while (Fill()) {
  }
  std::string rest;
  rest.swap(buffer_);
  return rest;
}

void ChildProcess::Signal(int sig) {
  if (pid_ > 0) ::kill(pid_, sig);
}

int ChildProcess::Wait() {
  int status = 0;
  if (pid_ > 0) ::waitpid(pid_, &status, 0);
  pid_ = -1;
  return status;
}

bool ChildProcess::Kill() {
  Signal(SIGKILL);
  const int status = Wait();
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

namespace {

std::string ReadProcFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::vector<pid_t> ChildrenOf(pid_t parent) {
  std::vector<pid_t> children;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    // "pid (command) state ppid ...": the command may hold spaces and parentheses.
    const std::string stat = ReadProcFile(entry.path().string() + "/stat");
    const size_t command_end = stat.rfind(')');
    char state = 0;
    int ppid = 0;
    if (command_end != std::string::npos &&
        std::sscanf(stat.c_str() + command_end + 1, " %c %d", &state, &ppid) == 2 &&
        ppid == parent) {
      children.push_back(std::stoi(entry.path().filename().string()));
    }
  }
  return children;
}

std::vector<std::string> ArgumentsOf(pid_t pid) {
  const std::string cmdline = ReadProcFile("/proc/" + std::to_string(pid) + "/cmdline");
  std::vector<std::string> args;
  for (size_t start = 0; start < cmdline.size();) {
    const size_t end = cmdline.find('\0', start);
    args.push_back(cmdline.substr(start, end - start));
    start = end == std::string::npos ? cmdline.size() : end + 1;
  }
  return args;
}

ProcessWatch::ProcessWatch(pid_t pid)
    : pid_(pid), fd_(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0))) {
  if (fd_ < 0) throw std::runtime_error("no process " + std::to_string(pid) + " to watch");
}

ProcessWatch::ProcessWatch(ProcessWatch&& other) noexcept : pid_(other.pid_), fd_(other.fd_) {
  other.fd_ = -1;
}

ProcessWatch::~ProcessWatch() {
  if (fd_ >= 0) ::close(fd_);
}

bool ProcessWatch::Ended(int timeout_ms) const {
  // A pidfd becomes readable when its process ends.
  pollfd fd = {fd_, POLLIN, 0};
  return ::poll(&fd, 1, timeout_ms) == 1;
}

std::string RunfilePath(const std::string& path) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir != nullptr && workspace != nullptr) {
    return std::string(srcdir) + "/" + workspace + "/" + path;
  }
  // Not a test. `bazel run` gives the program its runfiles tree beside it; a genrule runs
  // the program from bazel-bin, where what it needs was built beside it (its data).
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return path;
  std::filesystem::path candidate = self.string() + ".runfiles/mts/" + path;
  if (std::filesystem::exists(candidate, error)) return candidate.string();
  // bazel-out/<config>/bin/<package>/<program>: the output root is the nearest "bin" above.
  for (std::filesystem::path dir = self.parent_path(); dir.has_relative_path();
       dir = dir.parent_path()) {
    if (dir.filename() == "bin") {
      candidate = dir / path;
      if (std::filesystem::exists(candidate, error)) return candidate.string();
      break;
    }
  }
  return path;  // Run from the workspace root.
}

}  // namespace mts
