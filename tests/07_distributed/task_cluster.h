// task_cluster.h: starts the processes of a distributed job on 127.0.0.1 for a test, and
// makes sure none outlives it.
//
//   tests/07_distributed  <-- the multi-process tests drive real ps, chief and worker
//                             processes (examples:distributed_spirals) through this
//
// Ports are chosen free by binding port 0; every process writes its output to a log file in
// the test's temporary directory, which the test reads to follow the run. Every wait has a
// deadline, and the destructor SIGKILLs and reaps every process still running, so a failing
// test stops itself instead of hanging the suite.
#ifndef MTS_TESTS_07_DISTRIBUTED_TASK_CLUSTER_H_
#define MTS_TESTS_07_DISTRIBUTED_TASK_CLUSTER_H_

#include <sys/types.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mts {
namespace testing {

/// A ps and some workers of one job, as child processes of the test.
class TaskCluster {
 public:
  /// A cluster of one ps and `num_workers` workers (worker 0 is the chief), on free ports;
  /// nothing is started yet. `extra_flags` are given to every worker.
  TaskCluster(int num_workers, std::vector<std::string> extra_flags);
  /// SIGKILLs and reaps every process still running.
  ~TaskCluster();

  /// Starts (or restarts) the ps. Its log goes to ps.log (appended).
  void StartPs();
  /// Starts (or restarts) worker `task`. Its log goes to worker<task>.log (appended).
  void StartWorker(int task);
  /// SIGKILLs the ps and reaps it.
  void KillPs();
  /// Sends `sig` to the ps: SIGSTOP pauses it, as a long GC pause or swapping would, with its
  /// variables kept; SIGCONT resumes it.
  void SignalPs(int sig);
  /// SIGKILLs worker `task` and reaps it.
  void KillWorker(int task);

  /// Waits until worker `task` exits (at most `timeout_secs`); its exit status, or nullopt
  /// on timeout.
  std::optional<int> WaitWorker(int task, double timeout_secs);
  /// Waits until `log` contains `text` (at most `timeout_secs`); true if it appeared.
  bool WaitForLog(const std::string& log, const std::string& text, double timeout_secs) const;
  /// Waits until `done(content of log)` holds (at most `timeout_secs`); true if it did.
  bool WaitForLogUntil(const std::string& log, const std::function<bool(const std::string&)>& done,
                       double timeout_secs) const;
  /// The log file's content so far ("ps" or "worker<N>").
  std::string Log(const std::string& log) const;

  /// The cluster flag every process gets.
  const std::string& cluster_flag() const { return cluster_flag_; }
  /// The checkpoint directory of the chief.
  const std::string& checkpoint_dir() const { return checkpoint_dir_; }

 private:
  pid_t Spawn(const std::string& log, const std::vector<std::string>& args);
  void Kill(pid_t& pid);

  std::string binary_;
  std::string dir_;
  std::string cluster_flag_;
  std::string checkpoint_dir_;
  std::vector<std::string> extra_flags_;
  pid_t ps_ = -1;
  std::vector<pid_t> workers_;
};

/// The values of every `key` NUMBER in `text`, e.g. key "saved checkpoint at global step ".
std::vector<long long> NumbersAfter(const std::string& text, const std::string& key);

}  // namespace testing
}  // namespace mts

#endif  // MTS_TESTS_07_DISTRIBUTED_TASK_CLUSTER_H_
