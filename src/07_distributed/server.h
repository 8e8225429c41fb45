// server.h: one task of a cluster, serving over gRPC on its address.
//
// Stage 07: every process of a distributed job makes one for its task; a parameter server
// then only Join()s, answering GetStatus (its incarnation), ReadVariables and ApplyUpdates
// from its VariableStore, and RunResourceOp from its ResourceStore. A session made with
// master = server.target() is a RemoteSession that finds the "ps" tasks in the Server's
// ClusterSpec; a target no Server in the process owns is taken as the address of a single
// parameter server.
//
// Lifecycle: construct (binds and starts unless `start` is false); Join() until Stop(), or
// JoinUntilSignal() until Stop() or SIGTERM / SIGINT; the destructor stops it. Stop may be
// called from any thread.
//
// TensorFlow: tf.train.Server (tensorflow/python/training/server_lib.py).
#ifndef MTS_SRC_07_DISTRIBUTED_SERVER_H_
#define MTS_SRC_07_DISTRIBUTED_SERVER_H_

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "src/07_distributed/cluster_spec.h"
#include "src/07_distributed/ps_client.h"
#include "src/07_distributed/resource_store.h"
#include "src/07_distributed/variable_store.h"

namespace grpc {
class Server;
}  // namespace grpc

namespace mts {

class ParameterServerService;

/// What every session made on a Server's target() uses (TensorFlow's `config` argument of
/// tf.train.Server: the default ConfigProto of the sessions that run on the server).
struct ServerOptions {
  /// The deadline of each RPC those sessions make to a parameter server, in seconds
  /// (TensorFlow's operation_timeout_in_ms, which is unset by default: no deadline). A ps
  /// that misses it is treated as unavailable and the session is made again; the chief
  /// restores its checkpoint only if the ps restarted (SessionManager), so a slow ps costs
  /// time, not training.
  double rpc_timeout_secs = kDefaultRpcTimeoutSecs;
};

/// A task's gRPC server (TensorFlow's tf.train.Server).
class Server {
 public:
  /// The server of task `task_index` of `job_name` in `cluster`, listening on that task's
  /// address (port 0 picks a free port: see port()). Starts it unless `start` is false.
  /// \throws ValueError if the cluster has no such task.
  /// \throws UnavailableError if the address cannot be bound (another process, or another
  ///   Server of this one, holds the port).
  Server(ClusterSpec cluster, std::string job_name, int task_index, bool start = true,
         ServerOptions options = {});
  /// Stops the server.
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// Binds and starts serving. Idempotent. \throws UnavailableError if binding fails.
  void Start();
  /// Blocks until Stop() is called (a parameter server's main loop).
  void Join();
  /// Join, but SIGTERM or SIGINT to the process also stops the server, so a parameter server
  /// ends cleanly when its job is done (beyond TensorFlow, whose `server.join()` never
  /// returns). Calls `ready` once the signals are caught (to announce that the task is up).
  /// Returns the signal that stopped it, or 0 after a Stop() from elsewhere; the previous
  /// handlers are back when it returns. One call at a time per process.
  /// \throws InternalError if the pipe the handler writes to cannot be made.
  int JoinUntilSignal(const std::function<void()>& ready = nullptr);
  /// Stops serving: pending RPCs are cancelled; Join returns. Idempotent.
  void Stop();

  /// "grpc://host:port" of this task (with the real port once started).
  std::string target() const;
  /// The port actually bound (0 before Start).
  int port() const { return port_; }
  /// The cluster, with this task's address completed by the bound port.
  const ClusterSpec& cluster() const { return cluster_; }
  /// This task's job name.
  const std::string& job_name() const { return job_name_; }
  /// This task's index.
  int task_index() const { return task_index_; }
  /// The variables this task keeps (non-empty only on "ps" tasks).
  VariableStore& store() { return *store_; }
  /// The shared resources this task keeps (gradient accumulators, token queues).
  ResourceStore& resources() { return *resources_; }
  /// The options sessions on target() use.
  const ServerOptions& options() const { return options_; }

 private:
  ClusterSpec cluster_;
  const ServerOptions options_;
  const std::string job_name_;
  const int task_index_;
  int port_ = 0;
  std::unique_ptr<VariableStore> store_;
  std::unique_ptr<ResourceStore> resources_;
  std::unique_ptr<ParameterServerService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::optional<std::string> registered_target_;
  std::atomic<bool> shut_down_{false};
};

/// The cluster of the Server in this process whose target is `target`, if any.
std::optional<ClusterSpec> ClusterForTarget(const std::string& target);

/// The options of the Server in this process whose target is `target`, if any.
std::optional<ServerOptions> ServerOptionsForTarget(const std::string& target);

}  // namespace mts

#endif  // MTS_SRC_07_DISTRIBUTED_SERVER_H_
