// shared_resource.h: state that every worker of a job shares, kept by one task: the gradient
// accumulators and the token queue of synchronous replicas.
//
//   07_distributed/sync_replicas   SyncReplicasOptimizer builds ops on shared resources
//     SharedResource               <-- this file: the state, and where its ops run
//   01_session                     ResourceBase, the per-session state it derives from
//
// An op on a shared resource takes the resource's owner op as its reference input 0, as a
// queue op takes its queue. It runs in one of two places:
//   1. in the session's own resource, when the session keeps it (a plain Session: the
//      replicas are threads of one process);
//   2. on the ps task the owner is placed on, when the session is a SharedResourceRunner
//      that says so (a RemoteSession): the ps keeps one resource per name for every worker
//      (ResourceStore), so the workers meet there.
// An op that waits (take a gradient, take a token) waits in slices: a cancelled caller, a
// closed session or a stopped server ends it, and a wait longer than the op's
// `wait_warning_secs` attribute is logged with its `wait_warning`, which names what is missing.
//
// TensorFlow: resources with a shared_name in a ps device's ResourceMgr
// (tensorflow/core/framework/resource_mgr.h), reached by every worker's graph.
#ifndef MTS_SRC_07_DISTRIBUTED_SYNC_REPLICAS_SHARED_RESOURCE_H_
#define MTS_SRC_07_DISTRIBUTED_SYNC_REPLICAS_SHARED_RESOURCE_H_

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "src/01_session/op_def.h"
#include "src/01_session/operation.h"
#include "src/01_session/resource_mgr.h"
#include "src/01_session/tensor.h"

namespace mts {

/// How long, and until what, an op on a shared resource may wait.
struct WaitLimit {
  /// Polled while waiting; once it returns true the op fails with CancelledError (the
  /// caller went away, the server is stopping). Null: never.
  std::function<bool()> cancelled;
  /// After this many seconds of waiting the op gives up without changing anything and
  /// returns no outputs (std::nullopt), so the caller can say what it waits for and ask
  /// again. Negative: wait as long as it takes.
  double max_wait_secs = -1;
};

/// The state of one shared resource, and the ops that act on it.
class SharedResource : public ResourceBase {
 public:
  /// Runs op `op_type` (named `op_name`, for messages) on this resource with `inputs` (the
  /// op's inputs after the resource handle) and the op's attributes `attrs`.
  /// \returns the op's outputs, or std::nullopt if `wait.max_wait_secs` passed first (then
  ///   nothing changed).
  /// \throws CancelledError if the resource was closed or `wait.cancelled` said so.
  /// \throws InvalidArgumentError for inputs that do not fit the resource, or an op type
  ///   the resource does not know.
  virtual std::optional<std::vector<Tensor>> RunOp(const std::string& op_type,
                                                   const std::string& op_name,
                                                   const std::vector<Tensor>& inputs,
                                                   const AttrMap& attrs, const WaitLimit& wait) = 0;

  /// Ends every wait, now and later, with CancelledError (the session closes, the server
  /// stops, or a stopping Coordinator cancels the waits of the session). Idempotent.
  void Close() override;

 protected:
  /// Waits, with `lock` held on mu_, until `ready()`. \returns false if `wait.max_wait_secs`
  /// passed first. \throws CancelledError naming `op_name` and `what` it waited for, if the
  /// resource closes or the wait is cancelled.
  bool WaitLocked(std::unique_lock<std::mutex>& lock, const std::function<bool()>& ready,
                  const WaitLimit& wait, const std::string& op_name, const std::string& what);
  /// Wakes the waiters to look at the state again; call after a change, with mu_ held.
  void NotifyLocked() { cv_.notify_all(); }

  /// Guards the state of the derived resource.
  std::mutex mu_;

 private:
  std::condition_variable cv_;
  bool closed_ = false;  // Guarded by mu_.
};

/// Makes the resource of a shared-resource owner from its shared name and attributes, as a
/// ps does when the first worker names it.
using SharedResourceFactory = std::shared_ptr<SharedResource> (*)(const std::string& name,
                                                                  const AttrMap& attrs);

/// Registers `factory` for owner ops of type `owner_type` (at static-initialisation time).
void RegisterSharedResourceType(const std::string& owner_type, SharedResourceFactory factory);
/// The factory for owner ops of type `owner_type`, or null if that is no shared resource.
SharedResourceFactory FindSharedResourceType(const std::string& owner_type);

/// The name every task knows a shared resource by: its owner's "shared_name" attribute.
const std::string& SharedNameOf(const Operation& owner);

/// A session that may run some shared-resource ops elsewhere (RemoteSession, whose
/// resources live on the ps tasks).
class SharedResourceRunner {
 public:
  virtual ~SharedResourceRunner() = default;
  /// Runs `op` where its resource lives, if that is not this session. \returns its outputs,
  /// or std::nullopt if the resource is the session's own (the kernel then runs locally).
  virtual std::optional<std::vector<Tensor>> RunOnOwnerTask(const Operation& op,
                                                            const std::vector<Tensor>& inputs) = 0;
  /// Cancels every wait of this session on the resource of `owner`, and all later ones.
  /// \returns false if the resource is the session's own.
  virtual bool CancelOwnerTaskWaits(const Operation& owner) = 0;
};

/// What an op waiting on a shared resource logs after `waited_secs`: the op, how long, and
/// its `wait_warning` attribute (what it waits for and who should provide it).
std::string WaitWarningMessage(const Operation& op, double waited_secs);
/// The op's `wait_warning_secs` attribute, or -1 (no limit) if it has none.
double WaitWarningSecs(const Operation& op);

/// The OpDef of an op on a shared resource: reference input 0 is the owner, the kernel
/// runs the op where the resource lives (SharedResourceRunner) or in the session's own.
OpDef SharedResourceOpDef(const char* type, ShapeFn shape);

/// The op type whose kernel cancels the waits on a shared resource (see CancelWaits).
inline constexpr char kCancelSharedResourceWaits[] = "CancelSharedResourceWaits";

/// An op that cancels this session's waits on the shared resource of `owner`, now and
/// later: on the ps task for a RemoteSession, in the session's own resource otherwise.
Operation* CancelWaits(Operation* owner, const std::string& name = "");

}  // namespace mts

#endif  // MTS_SRC_07_DISTRIBUTED_SYNC_REPLICAS_SHARED_RESOURCE_H_
