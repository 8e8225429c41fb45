#include "examples/distributed_launcher.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace mts {
namespace {

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

// One child process and the two pipes its output comes through.
struct Task {
  std::string role;
  std::vector<std::string> args;
  pid_t pid = -1;
  int out = -1, err = -1;
  std::string out_buf, err_buf;
  bool exited = false;
  int status = 0;
};

using Clock = std::chrono::steady_clock;

class Launcher {
 public:
  Launcher(std::string self, const std::map<std::string, std::string>& flags)
      : self_(std::move(self)), flags_(flags), start_(Clock::now()) {}

  std::string Flag(const std::string& name, const std::string& fallback) const {
    auto it = flags_.find(name);
    return it == flags_.end() ? fallback : it->second;
  }

  void Say(const std::string& line) {
    std::printf("+%6.2fs %s\n", std::chrono::duration<double>(Clock::now() - start_).count(),
                line.c_str());
    std::fflush(stdout);
  }

  void Start(Task& task) {
    int out[2], err[2];
    if (pipe(out) != 0 || pipe(err) != 0) throw std::runtime_error("pipe failed");
    task.pid = fork();
    if (task.pid < 0) throw std::runtime_error("fork failed");
    if (task.pid == 0) {
      dup2(out[1], 1);
      dup2(err[1], 2);
      close(out[0]);
      close(err[0]);
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
    if (task.pid <= 0 || task.exited) return;
    kill(task.pid, SIGKILL);
    waitpid(task.pid, &task.status, 0);
    task.exited = true;
    Drain(task);
  }

  // Relays complete lines; returns the lines of stdout it relayed.
  std::vector<std::string> Relay(Task& task, int fd, std::string& buf, bool is_err) {
    std::vector<std::string> lines;
    char chunk[4096];
    const ssize_t n = read(fd, chunk, sizeof(chunk));
    if (n <= 0) {
      close(fd);
      (is_err ? task.err : task.out) = -1;
      return lines;
    }
    buf.append(chunk, static_cast<size_t>(n));
    for (size_t nl = buf.find('\n'); nl != std::string::npos; nl = buf.find('\n')) {
      std::string line = buf.substr(0, nl);
      buf.erase(0, nl + 1);
      if (!is_err) {
        Say(line);
        lines.push_back(line);
      } else if (trace_ && Interesting(line)) {
        // A log line: "I1130 19:13:08.094 file.cc:46] message" -> "[role] (log) message".
        const size_t msg = line.find("] ");
        Say("[" + task.role + "] (log) " +
            (msg == std::string::npos ? line : line.substr(msg + 2)).substr(0, 110));
      } else if (!trace_ && line.rfind("[", 0) == 0) {
        Say(line);  // A task's own fatal error ("[worker:1] failed: ...").
      }
    }
    return lines;
  }

  static bool Interesting(const std::string& line) {
    for (const char* key :
         {"preemption error", "Preemption error", "Worker still waiting", "Restored model"}) {
      if (line.find(key) != std::string::npos) return true;
    }
    return false;
  }

  void Drain(Task& task) {
    while (task.out >= 0) Relay(task, task.out, task.out_buf, false);
    while (task.err >= 0) Relay(task, task.err, task.err_buf, true);
  }

  int Run() {
    const int num_workers = std::stoi(Flag("num_workers", "3"));
    const bool restart_ps = flags_.count("restart_ps") && Flag("restart_ps", "") != "false";
    trace_ = flags_.count("trace") && Flag("trace", "") != "false";
    const long long train_steps = std::stoll(Flag("train_steps", restart_ps ? "1200" : "600"));
    const long long restart_after = std::stoll(Flag("restart_after_step", "300"));
    const double timeout_secs = std::stod(Flag("timeout_secs", "120"));

    std::string cluster = "ps=127.0.0.1:" + std::to_string(FreePort()) + ";worker=";
    for (int i = 0; i < num_workers; ++i) {
      cluster += (i ? ",127.0.0.1:" : "127.0.0.1:") + std::to_string(FreePort());
    }
    const std::string ckpt = Flag(
        "checkpoint_dir",
        (std::filesystem::temp_directory_path() / ("mts_distributed_" + std::to_string(getpid())))
            .string());
    std::filesystem::remove_all(ckpt);
    Say("[launcher] cluster " + cluster);

    Task ps;
    ps.role = "ps:0";
    ps.args = {"--job_name=ps", "--task_index=0", "--cluster=" + cluster};
    std::vector<Task> workers(num_workers);
    for (int i = 0; i < num_workers; ++i) {
      workers[i].role = "worker:" + std::to_string(i) + (i == 0 ? " chief" : "");
      workers[i].args = {"--job_name=worker",
                         "--task_index=" + std::to_string(i),
                         "--cluster=" + cluster,
                         "--checkpoint_dir=" + ckpt,
                         "--train_steps=" + std::to_string(train_steps),
                         "--save_steps=" + Flag("save_steps", "100"),
                         "--log_every=" + Flag("log_every", "100"),
                         "--step_delay_ms=" + Flag("step_delay_ms", restart_ps ? "5" : "0")};
    }
    // [mts:launcher-start]
    Start(ps);
    for (Task& w : workers) Start(w);
    // [mts:launcher-start-end]

    bool restarted = false;
    std::optional<Clock::time_point> restart_at;  // When the killed ps comes back.
    int running = num_workers;
    while (running > 0) {
      if (Clock::now() - start_ > std::chrono::duration<double>(timeout_secs)) {
        Say("[launcher] timed out after " + Flag("timeout_secs", "120") + " s; killing the job");
        for (Task& w : workers) Kill(w);
        Kill(ps);
        return 1;
      }
      std::vector<pollfd> fds;
      std::vector<std::pair<Task*, bool>> owners;
      for (Task* t : AllTasks(ps, workers)) {
        if (t->out >= 0) {
          fds.push_back({t->out, POLLIN, 0});
          owners.push_back({t, false});
        }
        if (t->err >= 0) {
          fds.push_back({t->err, POLLIN, 0});
          owners.push_back({t, true});
        }
      }
      poll(fds.data(), fds.size(), 100);
      for (size_t i = 0; i < fds.size(); ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP))) continue;
        Task& t = *owners[i].first;
        const bool is_err = owners[i].second;
        for (const std::string& line :
             Relay(t, is_err ? t.err : t.out, is_err ? t.err_buf : t.out_buf, is_err)) {
          // [mts:launcher-restart]
          const std::string key = "saved checkpoint at global step ";
          const size_t at = line.find(key);
          if (restart_ps && !restarted && &t == &workers[0] && at != std::string::npos &&
              std::atoll(line.c_str() + at + key.size()) >= restart_after) {
            restarted = true;
            Kill(ps);
            Say("[launcher] killed ps:0 with SIGKILL; its variables are gone");
            restart_at = Clock::now() + std::chrono::milliseconds(500);  // Down for 0.5 s.
          }
          // [mts:launcher-restart-end]
        }
      }
      if (restart_at && Clock::now() >= *restart_at) {
        restart_at.reset();
        Start(ps);
        Say("[launcher] restarted ps:0 on the same port");
      }
      for (Task& w : workers) {
        if (!w.exited && w.out < 0 && w.err < 0) {
          waitpid(w.pid, &w.status, 0);
          w.exited = true;
          --running;
        }
      }
    }
    Kill(ps);  // A parameter server never ends on its own.
    int failed = 0;
    for (Task& w : workers) {
      if (!WIFEXITED(w.status) || WEXITSTATUS(w.status) != 0) ++failed;
    }
    Say("[launcher] " + std::to_string(num_workers - failed) + " of " +
        std::to_string(num_workers) + " workers finished cleanly" +
        (restart_ps ? std::string(restarted ? "; the ps was restarted once" : "; no restart")
                    : std::string("")));
    if (!flags_.count("checkpoint_dir")) std::filesystem::remove_all(ckpt);
    return failed == 0 && (!restart_ps || restarted) ? 0 : 1;
  }

 private:
  static std::vector<Task*> AllTasks(Task& ps, std::vector<Task>& workers) {
    std::vector<Task*> all = {&ps};
    for (Task& w : workers) all.push_back(&w);
    return all;
  }

  std::string self_;
  std::map<std::string, std::string> flags_;
  Clock::time_point start_;
  bool trace_ = false;
};

}  // namespace

int RunLauncher(const std::string& self, const std::map<std::string, std::string>& flags) {
  signal(SIGPIPE, SIG_IGN);
  return Launcher(self, flags).Run();
}

}  // namespace mts
