// resource_mgr.h: the state one Session keeps for stateful ops (variables, generators, queues).
//
//   Session  <-- owns one ResourceMgr; two sessions on one graph hold separate state
//
// A variable's value does not live in the Graph: the graph only says "there is a variable
// named w". Each Session holds its own value for it, which is why a fresh session must
// initialise (or restore) its variables, the first chore MonitoredTrainingSession removes.
// The ResourceMgr maps each state-owning op to its resource (a ResourceBase), made on first
// use.
//
// Thread safety: all methods may be called concurrently. Resources synchronise themselves.
//
// TensorFlow: tensorflow::ResourceBase and tensorflow::ResourceMgr
// (tensorflow/core/framework/resource_base.h, resource_mgr.h), where resources live in named
// containers of a device.
#ifndef MTS_SRC_01_SESSION_RESOURCE_MGR_H_
#define MTS_SRC_01_SESSION_RESOURCE_MGR_H_

#include <memory>
#include <mutex>
#include <unordered_map>

namespace mts {

class Operation;

/// State an op keeps across runs of one session: a variable's value, a generator, a queue.
/// Each kind derives from it (VariableResource, FIFOQueueResource, ...); a kernel reaches its
/// own through OpKernelContext::resource<T>().
class ResourceBase {
 public:
  virtual ~ResourceBase() = default;
  /// Called once when the owning session closes: wake any kernel blocked on this resource.
  virtual void Close() {}
};

/// Creates the resource for its owning op, once per session (an OpDef's resource_factory).
using ResourceFactoryFn = std::shared_ptr<ResourceBase> (*)(const Operation& owner);

/// Per-session resources, keyed by the op that owns each one.
class ResourceMgr {
 public:
  /// The resource of `owner`, created with `factory` on first request.
  /// The pointer stays valid until the ResourceMgr is destroyed.
  ResourceBase* LookupOrCreate(const Operation& owner, ResourceFactoryFn factory);
  /// The resource of `owner` if it was created, else nullptr.
  ResourceBase* Find(const Operation& owner) const;
  /// Calls Close() on every resource (wakes kernels blocked on queues). Idempotent.
  void CloseAll();

 private:
  mutable std::mutex mu_;
  // Guarded by mu_. Resources are never removed before destruction, so raw pointers handed
  // out stay valid.
  std::unordered_map<const Operation*, std::shared_ptr<ResourceBase>> resources_;
};

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_RESOURCE_MGR_H_
