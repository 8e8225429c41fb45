// resource_store.h: the shared resources a parameter server keeps for every worker.
//
// Stage 07: a Server of job "ps" owns one beside its VariableStore. A worker's op on a
// shared resource placed on this task (an accumulator's ApplyGrad, a token dequeue) arrives
// as one RunResourceOp RPC; the store finds the resource by its shared name, making it on
// first use from the spec the worker sends, and runs the op there. An op that waits does so
// in the RPC's handler: it ends when its condition holds, when the caller cancels or the
// server stops (polled), or, when the request says so, after max_wait_secs with
// `timed_out` and nothing changed. Requests from another incarnation get AbortedError, as
// for variables. All methods may be called concurrently.
//
// TensorFlow: the ResourceMgr of a PS task's device, where a shared_name finds one
// resource for all sessions (tensorflow/core/framework/resource_mgr.h).
#ifndef MTS_SRC_07_DISTRIBUTED_RESOURCE_STORE_H_
#define MTS_SRC_07_DISTRIBUTED_RESOURCE_STORE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "src/07_distributed/parameter_server.pb.h"
#include "src/07_distributed/sync_replicas/shared_resource.h"

namespace mts {

/// A parameter server's shared resources, by shared name, until the process ends.
class ResourceStore {
 public:
  /// An empty store answering requests made against `incarnation`.
  explicit ResourceStore(uint64_t incarnation) : incarnation_(incarnation) {}
  ResourceStore(const ResourceStore&) = delete;
  ResourceStore& operator=(const ResourceStore&) = delete;

  /// Runs the request's op on its resource, waiting while `cancelled` returns false.
  /// \throws AbortedError if the request was made against another incarnation.
  /// \throws InvalidArgumentError if the name is taken by a resource of another type, or
  ///   the op does not fit the resource.
  /// \throws NotFoundError for an unknown resource type.
  /// \throws CancelledError if the wait was cancelled or the store closed.
  /// \throws DataLossError if a tensor or attribute of the request is malformed.
  distributed::RunResourceOpResponse Run(const distributed::RunResourceOpRequest& request,
                                         const std::function<bool()>& cancelled);

  /// Ends every wait, now and later (the server is stopping). Idempotent.
  void CloseAll();
  /// The resource named `name`, or null if no worker has named it yet.
  std::shared_ptr<SharedResource> Find(const std::string& name) const;
  /// How many resources the store holds.
  int num_resources() const;

 private:
  struct Entry {
    std::string type;
    std::shared_ptr<SharedResource> resource;
  };
  std::shared_ptr<SharedResource> FindOrCreate(const distributed::ResourceSpec& spec,
                                               const std::string& op_name);

  const uint64_t incarnation_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> resources_;  // Guarded by mu_.
  bool closed_ = false;                     // Guarded by mu_.
};

}  // namespace mts

#endif  // MTS_SRC_07_DISTRIBUTED_RESOURCE_STORE_H_
