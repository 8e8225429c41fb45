// ps_client.h: one worker's connection to one parameter-server task.
//
//   07_distributed   RemoteSession  <-- holds one PsClient per "ps" task it uses
//                      PsClient     <-- this file: the RPCs, their deadlines, their errors
//
// A server that is down, unreachable or past the deadline (kDefaultRpcTimeoutSecs unless
// the session's ServerOptions say otherwise) gives UnavailableError; one that restarted
// answers AbortedError, its incarnation gone. Each client has a gRPC channel of its own.
//
// Thread safety: all methods may be called concurrently.
//
// TensorFlow: GrpcRemoteWorker and the status conversion in
// tensorflow/core/distributed_runtime/rpc/grpc_util.h.
#ifndef MTS_SRC_07_DISTRIBUTED_PS_CLIENT_H_
#define MTS_SRC_07_DISTRIBUTED_PS_CLIENT_H_

#include <cstdint>
#include <memory>
#include <string>

#include "src/07_distributed/parameter_server.grpc.pb.h"

namespace mts {

/// The deadline of an RPC to a parameter server unless a session or server is given another
/// (TensorFlow sets none: a ps that hangs hangs the job).
constexpr double kDefaultRpcTimeoutSecs = 5;

/// The RPCs to one parameter-server task, with deadlines and tf.errors-style failures.
class PsClient {
 public:
  /// A client of the task named `task` ("/job:ps/task:0") at `address` ("host:port");
  /// each RPC may take at most `rpc_timeout_secs`.
  PsClient(std::string task, std::string address, double rpc_timeout_secs);
  ~PsClient();

  /// The server's incarnation. \throws UnavailableError if it is down or does not answer.
  uint64_t GetIncarnation();
  /// One ReadVariables round trip.
  /// \throws UnavailableError if the server is down or does not answer in time.
  /// \throws AbortedError if the server restarted since the request's incarnation.
  /// \throws OpError as the server raised it, for other failures.
  distributed::ReadVariablesResponse Read(const distributed::ReadVariablesRequest& request);
  /// One ApplyUpdates round trip.
  /// \throws UnavailableError if the server is down or does not answer in time.
  /// \throws AbortedError if the server restarted since the request's incarnation.
  /// \throws OpError as an update raised it on the server.
  void Apply(const distributed::ApplyUpdatesRequest& request);
  /// One RunResourceOp round trip in `context`, which another thread may TryCancel(). Its
  /// deadline is the request's max_wait_secs plus the RPC timeout; none if it waits without
  /// limit (a ps that hangs then hangs the caller, as in TensorFlow).
  /// \throws CancelledError if the context was cancelled.
  /// \throws UnavailableError if the server is down or does not answer in time.
  /// \throws AbortedError if the server restarted since the request's incarnation.
  /// \throws OpError as the op raised it on the server.
  distributed::RunResourceOpResponse RunResourceOp(const distributed::RunResourceOpRequest& request,
                                                   grpc::ClientContext& context);

  /// The task this client talks to.
  const std::string& task() const { return task_; }
  /// Its address.
  const std::string& address() const { return address_; }

 private:
  [[noreturn]] void Raise(const grpc::Status& status, const char* rpc) const;
  void SetDeadline(grpc::ClientContext& context) const;

  const std::string task_;
  const std::string address_;
  const double rpc_timeout_secs_;
  std::unique_ptr<distributed::ParameterServer::Stub> stub_;
};

}  // namespace mts

#endif  // MTS_SRC_07_DISTRIBUTED_PS_CLIENT_H_
