// cluster_spec.h: which processes make up a training cluster, by job and task.
//
//   07_distributed   <-- the cluster a Server belongs to and a RemoteSession talks to
//
// The address of "/job:ps/task:0" is ClusterSpec["ps"][0]. A spec comes from a flag
// (`ps=127.0.0.1:2222;worker=127.0.0.1:2223,127.0.0.1:2224`) or a JSON file
// (`{"ps": ["127.0.0.1:2222"], "worker": [...]}`). An address without a port, a job
// without tasks or a job named twice is refused.
//
// Thread safety: immutable after construction.
//
// TensorFlow: tf.train.ClusterSpec (tensorflow/python/training/server_lib.py).
#ifndef MTS_SRC_07_DISTRIBUTED_CLUSTER_SPEC_H_
#define MTS_SRC_07_DISTRIBUTED_CLUSTER_SPEC_H_

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace mts {

/// The addresses of every task of every job of a cluster (TensorFlow's tf.train.ClusterSpec).
class ClusterSpec {
 public:
  /// An empty cluster.
  ClusterSpec() = default;
  /// A cluster from job name to its tasks' "host:port" addresses, task 0 first.
  /// \throws ValueError naming the job if a job has no name, no tasks, or an address that
  ///   is not host:port.
  explicit ClusterSpec(std::map<std::string, std::vector<std::string>> jobs);

  /// Parses `job=host:port,host:port;job=...`.
  /// \throws ValueError naming what is malformed (a job named twice included).
  static ClusterSpec FromFlag(const std::string& flag);
  /// Parses `{"job": ["host:port", ...], ...}`.
  /// \throws ValueError naming what is malformed (a job named twice included).
  static ClusterSpec FromJson(const std::string& json);
  /// The largest cluster spec file FromJsonFile reads: 1 MiB, room for thousands of tasks.
  static constexpr size_t kMaxFileBytes = size_t{1} << 20;

  /// Reads and parses a JSON file, a regular file of at most kMaxFileBytes.
  /// \throws NotFoundError naming the file if it does not exist; FailedPreconditionError if
  ///   it is not a regular file (a FIFO would block, /dev/zero never end); another OpError
  ///   if it cannot be read.
  /// \throws ValueError if it is malformed or larger than kMaxFileBytes.
  static ClusterSpec FromJsonFile(const std::string& path);

  /// The job names, sorted.
  std::vector<std::string> jobs() const;
  /// How many tasks `job` has (0 if it is not in the cluster).
  int num_tasks(const std::string& job) const;
  /// The address of task `task_index` of `job`.
  /// \throws ValueError naming the job and index if there is no such task.
  const std::string& task_address(const std::string& job, int task_index) const;
  /// The spec as JSON, in the format FromJson reads.
  std::string ToJson() const;
  /// The spec in the format FromFlag reads.
  std::string ToFlag() const;

  /// Same jobs and addresses.
  bool operator==(const ClusterSpec& other) const { return jobs_ == other.jobs_; }

 private:
  std::map<std::string, std::vector<std::string>> jobs_;
};

}  // namespace mts

#endif  // MTS_SRC_07_DISTRIBUTED_CLUSTER_SPEC_H_
