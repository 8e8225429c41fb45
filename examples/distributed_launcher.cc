#include "examples/distributed_launcher.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "examples/example_output.h"

namespace mts {
namespace {

// The last stop signal received (SIGTERM or SIGINT; 0: none yet) and how many came. Written
// by the handler, read by the launcher's loop: a handler may only touch such flags.
volatile sig_atomic_t g_stop_signal = 0;
volatile sig_atomic_t g_stop_signals = 0;

void OnStopSignal(int sig) {
  g_stop_signal = sig;
  g_stop_signals = g_stop_signals + 1;
}

// How long the workers get to finish their step and the chief its final checkpoint.
constexpr int kStopGraceSecs = 30;

// How long a ps gets to end once told the job is done (its server stops at once).
constexpr int kPsStopSecs = 10;

int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    throw std::runtime_error("cannot bind a free port on 127.0.0.1");
  }
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

std::string SignalName(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

// A child's wait status in words: "status 1", "killed by SIGKILL".
std::string HowItEnded(int status) {
  if (WIFSIGNALED(status)) return "killed by " + SignalName(WTERMSIG(status));
  return "status " + std::to_string(WEXITSTATUS(status));
}

// The run's checkpoint directory. The user's is only ever used, never removed or emptied: it
// may hold anything. Without one, a new directory is made with mkdtemp, which nobody else can
// have chosen, so that everything in it is this run's; that one is removed with the launcher.
class CheckpointDir {
 public:
  explicit CheckpointDir(const std::string& given) : path_(given) {
    if (!path_.empty()) return;
    std::string pattern =
        (std::filesystem::temp_directory_path() / "mts_distributed_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("cannot make a checkpoint directory " + pattern + ": " +
                               std::strerror(errno) + "; give one with --checkpoint_dir");
    }
    path_ = pattern;
    made_here_ = true;
  }
  ~CheckpointDir() {
    std::error_code ignored;  // Nothing to do about a failure here but leave the directory.
    if (made_here_) std::filesystem::remove_all(path_, ignored);
  }
  CheckpointDir(const CheckpointDir&) = delete;
  CheckpointDir& operator=(const CheckpointDir&) = delete;

  const std::string& path() const { return path_; }
  bool made_here() const { return made_here_; }

 private:
  std::string path_;
  bool made_here_ = false;
};

// One child process and the two pipes its output comes through.
struct Task {
  std::string role;
  std::vector<std::string> args;
  pid_t pid = -1;
  int out = -1, err = -1;
  std::string out_buf, err_buf;
  bool exited = true;  // Until started.
  int status = 0;
};

using Clock = std::chrono::steady_clock;

class Launcher {
 public:
  Launcher(std::string self, const LauncherOptions& options)
      : self_(std::move(self)),
        options_(options),
        start_(Clock::now()),
        checkpoint_dir_(options.checkpoint_dir) {}

  // Whatever happens (an exception included), no child outlives the launcher.
  ~Launcher() { KillAll(); }

  int Run();

  // The signal that stopped the job, 0 if none did.
  int stop_signal() const { return stop_deadline_ ? static_cast<int>(g_stop_signal) : 0; }

 private:
  // A line on stdout. Once nobody reads it (`distributed_spirals | head -3`), the job is
  // stopped as on SIGTERM (HandleStopSignal): the chief writes its final checkpoint.
  void Say(const std::string& line) {
    const double secs = std::chrono::duration<double>(Clock::now() - start_).count();
    if (!PrintLine("+%6.2fs %s", secs, line.c_str())) output_closed_ = true;
  }

  // A line of the launcher's own about stopping the job: on stdout, or on stderr once stdout
  // is closed, so that the user still learns how the job ended.
  void Report(const std::string& line) {
    Say(line);
    if (output_closed_) std::fprintf(stderr, "%s\n", line.c_str());
  }

  void Start(Task& task) {
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
      throw std::runtime_error(std::string("pipe failed: ") + std::strerror(errno));
    }
    const pid_t launcher = getpid();
    task.pid = fork();
    if (task.pid < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
    if (task.pid == 0) {
      // [mts:launcher-child]
      // Die with the launcher, even by SIGKILL: the kernel sends this child SIGKILL when
      // its parent dies, across the exec below. If the launcher died before the call,
      // getppid() already names another process; leave rather than run as an orphan.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != launcher) _exit(1);
      // A process group of its own: a Ctrl-C at the terminal reaches the launcher alone,
      // which stops the workers first and the ps, which they need to save, last.
      setpgid(0, 0);
      // [mts:launcher-child-end]
      signal(SIGPIPE, SIG_DFL);  // The launcher's choice; each task makes its own.
      dup2(out[1], 1);
      dup2(err[1], 2);
      std::vector<char*> argv = {const_cast<char*>(self_.c_str())};
      for (const std::string& a : task.args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(self_.c_str(), argv.data());
      _exit(127);
    }
    close(out[1]);
    close(err[1]);
    task.out = out[0];
    task.err = err[0];
    task.exited = false;
  }

  void Kill(Task& task) {
    if (task.exited) return;
    kill(task.pid, SIGKILL);
    waitpid(task.pid, &task.status, 0);
    task.exited = true;
    Drain(task);
  }

  // [mts:launcher-ps-end]
  // The job is done: the ps is asked to end (SIGTERM, on which its server stops and the
  // process exits 0), and killed only if it has not ended kPsStopSecs later.
  void StopPs() {
    if (ps_.exited) return;
    kill(ps_.pid, SIGTERM);
    const Clock::time_point deadline = Clock::now() + std::chrono::seconds(kPsStopSecs);
    while (!ps_.exited && Clock::now() < deadline) {
      PollAndRelay();  // Until its output closes: the process has ended, or is ending.
      if (ps_.out < 0 && ps_.err < 0) {
        waitpid(ps_.pid, &ps_.status, 0);
        ps_.exited = true;
      }
    }
    if (!ps_.exited) {
      Say("[launcher] ps:0 still running " + std::to_string(kPsStopSecs) +
          " s after SIGTERM; killing it");
      Kill(ps_);
      return;
    }
    const bool clean = WIFEXITED(ps_.status) && WEXITSTATUS(ps_.status) == 0;
    Say("[launcher] ps:0 " + (clean ? std::string("ended cleanly") : HowItEnded(ps_.status)));
  }
  // [mts:launcher-ps-end-end]

  void KillAll() {
    for (Task& w : workers_) Kill(w);
    Kill(ps_);
  }

  // Relays complete lines; returns the lines of stdout it relayed.
  std::vector<std::string> Relay(Task& task, bool is_err) {
    int& fd = is_err ? task.err : task.out;
    std::string& buf = is_err ? task.err_buf : task.out_buf;
    std::vector<std::string> lines;
    char chunk[4096];
    const ssize_t n = read(fd, chunk, sizeof(chunk));
    if (n <= 0) {
      close(fd);
      fd = -1;
      return lines;
    }
    buf.append(chunk, static_cast<size_t>(n));
    for (size_t nl = buf.find('\n'); nl != std::string::npos; nl = buf.find('\n')) {
      std::string line = buf.substr(0, nl);
      buf.erase(0, nl + 1);
      if (!is_err) {
        Say(line);
        lines.push_back(line);
      } else {
        RelayErrorLine(task, line);
      }
    }
    return lines;
  }

  // A task's stderr: its log, and its own fatal error ("[worker:1] failed: ...").
  void RelayErrorLine(const Task& task, const std::string& line) {
    // A log line: "W1130 19:13:08.094 file.cc:46] message".
    const size_t msg = line.find("] ");
    const bool is_log = line.size() > 1 && std::strchr("IWE", line[0]) != nullptr &&
                        line[1] >= '0' && line[1] <= '9' && msg != std::string::npos;
    if (is_log && line[0] != 'I') {
      // Warnings and errors always: what they say may cost the user's work.
      Say("[" + task.role + "] (" + (line[0] == 'W' ? "warning" : "error") + ") " +
          line.substr(msg + 2));
    } else if (is_log && options_.trace && Interesting(line)) {
      Say("[" + task.role + "] (log) " + line.substr(msg + 2).substr(0, 110));
    } else if (!is_log && line.rfind("[", 0) == 0) {
      Say(line);
    }
  }

  static bool Interesting(const std::string& line) {
    for (const char* key :
         {"preemption error", "Preemption error", "Worker still waiting", "Restored model"}) {
      if (line.find(key) != std::string::npos) return true;
    }
    return false;
  }

  void Drain(Task& task) {
    while (task.out >= 0) Relay(task, false);
    while (task.err >= 0) Relay(task, true);
  }

  int Running() const {
    int running = 0;
    for (const Task& w : workers_) running += !w.exited;
    return running;
  }

  void PollAndRelay();
  void OnStdoutLine(const Task& task, const std::string& line);
  void HandleStopSignal();
  void ReapWorkers();
  void OnChiefExit(const Task& chief);

  std::string self_;
  LauncherOptions options_;
  Clock::time_point start_;
  CheckpointDir checkpoint_dir_;
  Task ps_;
  std::vector<Task> workers_;
  std::optional<long long> chief_saved_step_;  // The chief's newest "saved checkpoint" line.
  bool restarted_ = false;
  std::optional<Clock::time_point> restart_at_;     // When the killed ps comes back.
  std::optional<Clock::time_point> stop_deadline_;  // Set once a stop was asked for.
  bool stop_killed_ = false;
  bool output_closed_ = false;  // A write to stdout failed with EPIPE: a stop request.
};

int Launcher::Run() {
  std::string cluster = "ps=127.0.0.1:" + std::to_string(FreePort()) + ";worker=";
  for (int i = 0; i < options_.num_workers; ++i) {
    cluster += (i ? ",127.0.0.1:" : "127.0.0.1:") + std::to_string(FreePort());
  }
  const std::string& dir = checkpoint_dir_.path();
  Say("[launcher] cluster " + cluster);
  Say(checkpoint_dir_.made_here()
          ? "[launcher] checkpoints in " + dir +
                ", made for this run and removed at its end (give --checkpoint_dir to keep them)"
          : "[launcher] checkpoints in " + dir +
                ": yours, never removed or emptied; the chief resumes from its newest checkpoint"
                ", if it holds one");

  ps_.role = "ps:0";
  ps_.args = {"--job_name=ps", "--task_index=0", "--cluster=" + cluster};
  workers_.resize(options_.num_workers);
  for (int i = 0; i < options_.num_workers; ++i) {
    workers_[i].role = "worker:" + std::to_string(i) + (i == 0 ? " chief" : "");
    workers_[i].args = {"--job_name=worker", "--task_index=" + std::to_string(i),
                        "--cluster=" + cluster, "--checkpoint_dir=" + dir};
    workers_[i].args.insert(workers_[i].args.end(), options_.worker_flags.begin(),
                            options_.worker_flags.end());
  }
  // [mts:launcher-start]
  Start(ps_);
  for (Task& w : workers_) Start(w);
  // [mts:launcher-start-end]

  while (Running() > 0) {
    if (Clock::now() - start_ > std::chrono::duration<double>(options_.timeout_secs)) {
      std::ostringstream secs;
      secs << options_.timeout_secs;
      Say("[launcher] timed out after " + secs.str() + " s (--timeout_secs); killing the job");
      KillAll();
      return 1;
    }
    HandleStopSignal();
    PollAndRelay();
    if (restart_at_ && Clock::now() >= *restart_at_) {
      restart_at_.reset();
      Start(ps_);
      Say("[launcher] restarted ps:0 on the same port");
    }
    ReapWorkers();
  }
  StopPs();  // A parameter server never ends on its own: it is told the job is done.
  int failed = 0;
  for (const Task& w : workers_) failed += !WIFEXITED(w.status) || WEXITSTATUS(w.status) != 0;
  const std::string finished = std::to_string(options_.num_workers - failed) + " of " +
                               std::to_string(options_.num_workers) + " workers";
  if (stop_deadline_) {
    Report("[launcher] stopped by " +
           (g_stop_signals > 0 ? SignalName(g_stop_signal) : "its closed standard output") + ": " +
           finished + " stopped cleanly; the newest checkpoint is at step " +
           (chief_saved_step_ ? std::to_string(*chief_saved_step_) : std::string("(none)")));
    return 1;
  }
  Say("[launcher] " + finished + " finished cleanly" +
      (options_.restart_ps
           ? std::string(restarted_ ? "; the ps was restarted once" : "; no restart")
           : std::string("")));
  return failed == 0 && (!options_.restart_ps || restarted_) ? 0 : 1;
}

void Launcher::PollAndRelay() {
  std::vector<pollfd> fds;
  std::vector<std::pair<Task*, bool>> owners;
  std::vector<Task*> all = {&ps_};
  for (Task& w : workers_) all.push_back(&w);
  for (Task* t : all) {
    if (t->out >= 0) {
      fds.push_back({t->out, POLLIN, 0});
      owners.push_back({t, false});
    }
    if (t->err >= 0) {
      fds.push_back({t->err, POLLIN, 0});
      owners.push_back({t, true});
    }
  }
  // A stop signal interrupts the wait (EINTR): the loop handles it at once.
  poll(fds.data(), fds.size(), 100);
  for (size_t i = 0; i < fds.size(); ++i) {
    if (!(fds[i].revents & (POLLIN | POLLHUP))) continue;
    Task& task = *owners[i].first;
    for (const std::string& line : Relay(task, owners[i].second)) OnStdoutLine(task, line);
  }
}

void Launcher::OnStdoutLine(const Task& task, const std::string& line) {
  const std::string key = "saved checkpoint at global step ";
  const size_t at = line.find(key);
  if (&task != &workers_[0] || at == std::string::npos) return;
  chief_saved_step_ = std::atoll(line.c_str() + at + key.size());
  // [mts:launcher-restart]
  if (options_.restart_ps && !restarted_ && *chief_saved_step_ >= options_.restart_after_step) {
    restarted_ = true;
    Kill(ps_);
    Say("[launcher] killed ps:0 with SIGKILL; its variables are gone");
    restart_at_ = Clock::now() + std::chrono::milliseconds(500);  // Down for 0.5 s.
  }
  // [mts:launcher-restart-end]
}

// [mts:launcher-stop]
void Launcher::HandleStopSignal() {
  // A closed stdout asks for the same stop as SIGTERM, which the workers are sent.
  if ((g_stop_signals == 0 && !output_closed_) || stop_killed_) return;
  const int sig = g_stop_signals > 0 ? static_cast<int>(g_stop_signal) : SIGTERM;
  const std::string name = SignalName(sig);
  if (!stop_deadline_) {
    // The workers' SignalStopHook ends their loop after the current step, and the chief's
    // clean close writes the final checkpoint. The ps stays up until they are done.
    stop_deadline_ = Clock::now() + std::chrono::seconds(kStopGraceSecs);
    Report("[launcher] " + (g_stop_signals > 0 ? "received " + name : "standard output is closed") +
           ": the workers stop after their current step (the chief writes its final checkpoint),"
           " then the ps");
    for (Task& w : workers_) {
      if (!w.exited) kill(w.pid, sig);
    }
  } else if (g_stop_signals > 1 || Clock::now() > *stop_deadline_) {
    stop_killed_ = true;
    Report("[launcher] " +
           (g_stop_signals > 1
                ? "a second " + name
                : "workers still running after " + std::to_string(kStopGraceSecs) + " s") +
           ": killing them now, without a final checkpoint");
    for (Task& w : workers_) Kill(w);
  }
}
// [mts:launcher-stop-end]

void Launcher::ReapWorkers() {
  for (Task& w : workers_) {
    if (w.exited || w.out >= 0 || w.err >= 0) continue;
    waitpid(w.pid, &w.status, 0);
    w.exited = true;
    if (&w == &workers_[0]) OnChiefExit(w);
  }
}

// [mts:launcher-chief-gone]
void Launcher::OnChiefExit(const Task& chief) {
  // A chief that finished (or was stopped) ended cleanly, and the others end at the same
  // step. One that crashed or was killed leaves workers training a model nobody saves.
  const bool clean = WIFEXITED(chief.status) && WEXITSTATUS(chief.status) == 0;
  const int training = Running();
  if (clean || stop_deadline_ || training == 0) return;
  const std::string saved =
      chief_saved_step_ ? "past step " + std::to_string(*chief_saved_step_) : "at all";
  Say("[launcher] the chief exited (" + HowItEnded(chief.status) + ") while " +
      std::to_string(training) + (training == 1 ? " worker still trains" : " workers still train") +
      ": the workers train on but no checkpoint will be written " + saved +
      ", so what they train from now on is lost when the job ends (a restarted chief restores "
      "its last checkpoint too). Stop the job and start it again to resume from there.");
}
// [mts:launcher-chief-gone-end]

}  // namespace

int RunLauncher(const std::string& self, const LauncherOptions& options) {
  // SIGTERM and SIGINT become requests the loop handles (no SA_RESTART: they interrupt
  // poll()); a task's pipe closing must not kill the launcher (SIGPIPE ignored). The old
  // dispositions come back when the run ends, however it ends.
  struct Dispositions {
    Dispositions() {
      struct sigaction stop = {}, ignore = {};
      stop.sa_handler = OnStopSignal;
      sigemptyset(&stop.sa_mask);
      ignore.sa_handler = SIG_IGN;
      sigemptyset(&ignore.sa_mask);
      sigaction(SIGTERM, &stop, &term);
      sigaction(SIGINT, &stop, &interrupt);
      sigaction(SIGPIPE, &ignore, &pipe);
    }
    ~Dispositions() {
      sigaction(SIGTERM, &term, nullptr);
      sigaction(SIGINT, &interrupt, nullptr);
      sigaction(SIGPIPE, &pipe, nullptr);
    }
    struct sigaction term = {}, interrupt = {}, pipe = {};
  };
  int result = 1;
  int stopped_by = 0;
  {
    Dispositions dispositions;
    Launcher launcher(self, options);
    result = launcher.Run();
    stopped_by = launcher.stop_signal();
  }  // Every child is reaped, a directory made for the run removed, the handlers put back.
  if (stopped_by != 0) {
    // End as the signal would have ended the launcher, so that the shell (or a scheduler)
    // sees what stopped it.
    signal(stopped_by, SIG_DFL);
    raise(stopped_by);
  }
  return result;
}

}  // namespace mts
