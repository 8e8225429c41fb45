// remote_session.h: a Session whose variables live on parameter servers.
//
//   Chief / Worker   SessionManager makes it for a "grpc://..." master (session_factory.h)
//     Session        <-- this file: RemoteSession reads its placed variables from the ps
//                        tasks before a step and sends them its updates after
//
// A step reads (one ReadVariables RPC per ps task, into local copies), computes (the
// ordinary Session::Run, also fetching the inputs of every op that updates a placed
// variable) and updates (one ApplyUpdates RPC per ps task; the server runs those ops again).
// A step that fails before the update changes nothing there. A server down gives
// UnavailableError, one restarted (another incarnation) AbortedError. An op on a shared
// resource placed on a ps task (a gradient accumulator, a token queue) runs there, one
// RunResourceOp RPC while the step waits (remote_session_resources.cc); one that depends
// on the step's updates runs after they are sent. Run may be called concurrently; steps
// that touch placed variables are serialised within one session, except while one waits
// for a shared resource.
//
// TensorFlow: GrpcSession (tensorflow/core/distributed_runtime/rpc/grpc_session.h).
#ifndef MTS_SRC_07_DISTRIBUTED_REMOTE_SESSION_H_
#define MTS_SRC_07_DISTRIBUTED_REMOTE_SESSION_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "src/01_session/session.h"
#include "src/07_distributed/cluster_spec.h"
#include "src/07_distributed/ps_client.h"
#include "src/07_distributed/sync_replicas/shared_resource.h"

namespace grpc {
class ClientContext;
}  // namespace grpc

namespace mts {

/// How a RemoteSession talks to its servers.
struct RemoteSessionOptions {
  /// The deadline of every RPC, in seconds. A session made by the factory for a Server's
  /// target() takes the server's ServerOptions::rpc_timeout_secs.
  double rpc_timeout_secs = kDefaultRpcTimeoutSecs;
};

/// A Session whose placed variables live on the cluster's ps tasks (TensorFlow's GrpcSession).
class RemoteSession : public Session, public SharedResourceRunner {
 public:
  /// \cond
  using Session::Run;
  /// \endcond

  /// A session on `graph` (the default graph if null) using `cluster`'s ps tasks; asks each
  /// ps task the graph uses for its incarnation.
  /// \throws UnavailableError if a ps task does not answer.
  /// \throws ValueError if the graph places a variable on a task the cluster does not have.
  RemoteSession(Graph* graph, SessionOptions options, ClusterSpec cluster,
                RemoteSessionOptions remote_options = {});

  /// Reads the placed variables the step needs (one RPC per ps task), runs the step locally,
  /// sends its updates (one RPC per ps task). See Session::Run for the rest of the contract.
  /// \throws UnavailableError if a ps task is down or misses the deadline.
  /// \throws AbortedError if a ps task restarted since the session was made.
  /// \throws OpError as the step, or an update on the server, raised it.
  /// (Session's Run that returns a vector calls this one.)
  void Run(const std::vector<Output>& fetches, const FeedDict& feeds,
           const std::vector<Operation*>& targets, const RunOptions& options,
           RunMetadata* run_metadata, std::vector<Tensor>* outputs) override;

  /// Cancels this session's waits on shared resources, then closes it (Session::Close).
  void Close() override;

  /// Runs `op` on the ps task its resource is placed on (one RunResourceOp RPC, letting
  /// the session's other steps go on meanwhile), or nothing if `op` depends on the step's
  /// updates (it runs after they are sent). A wait past the op's wait_warning_secs is
  /// logged and the RPC made again. \returns std::nullopt for a resource not placed.
  /// \throws CancelledError once the session's waits were cancelled.
  std::optional<std::vector<Tensor>> RunOnOwnerTask(const Operation& op,
                                                    const std::vector<Tensor>& inputs) override;
  /// Cancels every RunResourceOp of this session now waiting, and fails later ones (the
  /// chief's queue runner's cancel op, when its Coordinator stops).
  bool CancelOwnerTaskWaits(const Operation& owner) override;

  /// The incarnation of ps task `task` this session was made against (0 if unused).
  uint64_t incarnation(int task) const;
  /// Each ps task this session uses, with its address and incarnation, e.g.
  /// "/job:ps/task:0 at 127.0.0.1:2222 (incarnation 77...)"; "" if it uses none.
  std::string variables_incarnation() const override;
  /// The cluster.
  const ClusterSpec& cluster() const { return cluster_; }
  /// How many ReadVariables and ApplyUpdates RPCs this session made.
  int64_t num_rpcs() const;

 private:
  // What one run signature needs from the servers, computed once per signature.
  struct StepPlan {
    std::map<int, std::vector<const Operation*>> reads;  // Per ps task, the variables.
    struct Writer {
      const Operation* op;
      int task;
      int first_extra_fetch;  // Index into extra_fetches of its first non-reference input.
    };
    std::vector<Writer> writers;        // Ops updating placed variables, in execution order.
    std::vector<Writer> deferred;       // Shared-resource ops after the updates, in order.
    std::vector<Output> extra_fetches;  // Their non-reference inputs.
  };

  // Makes the step lock of the Run on this thread known to CallOwnerTask, which lets it go
  // while the step waits for a shared resource, so other steps of the session go on.
  struct StepLockScope {
    explicit StepLockScope(std::unique_lock<std::mutex>* lock);
    ~StepLockScope();
    std::unique_lock<std::mutex>* previous;
  };
  static thread_local std::unique_lock<std::mutex>* current_step_lock_;

  std::shared_ptr<const StepPlan> GetStepPlan(const std::vector<Output>& fetches,
                                              const FeedDict& feeds,
                                              const std::vector<Operation*>& targets);
  void ReadPlaced(const StepPlan& plan);
  void SendUpdates(const StepPlan& plan, const std::vector<Tensor>& results, size_t offset);
  // remote_session_resources.cc: the shared resources placed on ps tasks.
  void PlanSharedResourceOp(const Operation& op, StepPlan& plan,
                            std::map<const Operation*, bool>& memo);
  bool DependsOnUpdate(const Operation& op, std::map<const Operation*, bool>& memo) const;
  bool IsPlacedVariableUpdate(const Operation& op) const;
  std::vector<Tensor> CallOwnerTask(const Operation& op, const std::vector<Tensor>& inputs,
                                    int task);
  void RunDeferred(const StepPlan& plan, const std::vector<Tensor>& results, size_t offset);
  // One RunResourceOp that Close or CancelOwnerTaskWaits can cancel.
  distributed::RunResourceOpResponse CancellableCall(
      const Operation& op, const distributed::RunResourceOpRequest& request, int task);

  ClusterSpec cluster_;
  std::map<std::string, int> placement_;              // Variable op name -> ps task.
  std::map<int, std::unique_ptr<PsClient>> clients_;  // Per ps task used.
  std::map<int, uint64_t> incarnations_;
  std::mutex step_mu_;  // Serialises steps that touch placed variables.
  mutable std::mutex plans_mu_;
  std::map<std::string, std::shared_ptr<const StepPlan>> plans_;  // Guarded by plans_mu_.
  std::set<const Operation*> deferred_;  // Guarded by plans_mu_.
  std::mutex waits_mu_;
  std::set<grpc::ClientContext*> waits_;  // Guarded by waits_mu_: RPCs now waiting.
  bool waits_cancelled_ = false;          // Guarded by waits_mu_.
  mutable std::mutex stats_mu_;
  int64_t num_rpcs_ = 0;  // Guarded by stats_mu_.
};

/// The cluster a "grpc://host:port" target names: the cluster of this process's Server with
/// that target, else a cluster whose only ps task is host:port.
/// \throws InvalidArgumentError if the target does not start with "grpc://".
ClusterSpec ClusterOfTarget(const std::string& target);

}  // namespace mts

#endif  // MTS_SRC_07_DISTRIBUTED_REMOTE_SESSION_H_
