#include "tests/07_distributed/task_cluster.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "tests/testing/local_socket.h"

namespace mts {
namespace testing {
namespace {

std::string Env(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : fallback;
}

}  // namespace

TaskCluster::TaskCluster(int num_workers, std::vector<std::string> extra_flags)
    : extra_flags_(std::move(extra_flags)), workers_(num_workers, -1) {
  binary_ = Env("TEST_SRCDIR", ".") + "/mts/examples/distributed_spirals";
  static int instance = 0;
  dir_ = Env("TEST_TMPDIR", "/tmp") + "/cluster" + std::to_string(getpid()) + "_" +
         std::to_string(instance++);
  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_);
  checkpoint_dir_ = dir_ + "/ckpt";
  // Free now; the tiny window before a task binds its port is acceptable on a test machine.
  cluster_flag_ = "ps=" + AddressNobodyListensOn() + ";worker=";
  for (int i = 0; i < num_workers; ++i) {
    cluster_flag_ += (i ? "," : "") + AddressNobodyListensOn();
  }
}

TaskCluster::~TaskCluster() {
  for (pid_t& pid : workers_) Kill(pid);
  Kill(ps_);
}

pid_t TaskCluster::Spawn(const std::string& log, const std::vector<std::string>& args) {
  const std::string path = dir_ + "/" + log + ".log";
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(binary_.c_str()));
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(binary_.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

void TaskCluster::Kill(pid_t& pid) {
  if (pid <= 0) return;
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  pid = -1;
}

void TaskCluster::StartPs() {
  ps_ = Spawn("ps", {"--job_name=ps", "--task_index=0", "--cluster=" + cluster_flag_});
}

void TaskCluster::StartWorker(int task) {
  std::vector<std::string> args = {"--job_name=worker", "--task_index=" + std::to_string(task),
                                   "--cluster=" + cluster_flag_,
                                   "--checkpoint_dir=" + checkpoint_dir_};
  args.insert(args.end(), extra_flags_.begin(), extra_flags_.end());
  workers_[task] = Spawn("worker" + std::to_string(task), args);
}

void TaskCluster::KillPs() { Kill(ps_); }
void TaskCluster::SignalPs(int sig) {
  if (ps_ > 0) kill(ps_, sig);
}
void TaskCluster::KillWorker(int task) { Kill(workers_[task]); }

std::optional<int> TaskCluster::WaitWorker(int task, double timeout_secs) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_secs);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(workers_[task], &status, WNOHANG) == workers_[task]) {
      workers_[task] = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return std::nullopt;
}

std::string TaskCluster::Log(const std::string& log) const {
  std::ifstream in(dir_ + "/" + log + ".log");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool TaskCluster::WaitForLog(const std::string& log, const std::string& text,
                             double timeout_secs) const {
  return WaitForLogUntil(
      log, [&](const std::string& content) { return content.find(text) != std::string::npos; },
      timeout_secs);
}

bool TaskCluster::WaitForLogUntil(const std::string& log,
                                  const std::function<bool(const std::string&)>& done,
                                  double timeout_secs) const {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_secs);
  while (std::chrono::steady_clock::now() < deadline) {
    if (done(Log(log))) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

std::vector<long long> NumbersAfter(const std::string& text, const std::string& key) {
  std::vector<long long> numbers;
  for (size_t pos = text.find(key); pos != std::string::npos; pos = text.find(key, pos + 1)) {
    numbers.push_back(std::atoll(text.c_str() + pos + key.size()));
  }
  return numbers;
}

}  // namespace testing
}  // namespace mts
