// execution_plan.h: the pruned, ordered list of ops one Session::Run signature executes.
//
//   Session  <-- caches one ExecutionPlan per (feeds, fetches, targets) signature
//
// A plan holds the ops the fetches and targets need (stopping at fed tensors) in creation
// order, one value slot per output, the op after which each value is dead and released,
// and the inputs an op may overwrite with its output (buffer forwarding).
//
// Thread safety: a plan is immutable after Build, and shared by concurrent runs.
//
// TensorFlow: the pruning in tensorflow/core/graph/subgraph.cc and the executor's
// per-graph setup in tensorflow/core/common_runtime/executor.cc.
#ifndef MTS_SRC_01_SESSION_EXECUTION_PLAN_H_
#define MTS_SRC_01_SESSION_EXECUTION_PLAN_H_

#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "src/01_session/op_def.h"
#include "src/01_session/operation.h"
#include "src/01_session/resource_mgr.h"

namespace mts {

/// The ops a run of `fetches` and `targets` must execute, in creation order (a topological
/// order): everything they need through inputs and control inputs, except that a tensor in
/// `fed` cuts the walk (its producer is not run for that value). RemoteSession (stage 07)
/// prunes with it too, so that it sends no update for an op that did not run.
std::vector<const Operation*> NeededOps(const std::unordered_set<Output>& fed,
                                        const std::vector<Output>& fetches,
                                        const std::vector<Operation*>& targets);

/// One op to run, with everything the executor needs resolved ahead of time.
struct PlanNode {
  const Operation* op = nullptr;     ///< The op.
  KernelFn kernel = nullptr;         ///< Its kernel.
  ResourceBase* resource = nullptr;  ///< Its per-session resource, or null.
  /// The resources behind its reference inputs (OpDef::num_ref_inputs), in input order.
  std::vector<ResourceBase*> ref_resources;
  int input_offset = 0;  ///< Where its input slot indices start in ExecutionPlan::input_slots.
  int num_inputs = 0;    ///< How many inputs it has.
  int output_base = 0;   ///< The slot of its first output; outputs are consecutive.
  /// Inputs that come from a variable and must hold a value (not a ref input).
  std::vector<int> check_initialized;
  /// Slots whose last reader is this op: released right after it runs.
  std::vector<int> release;
  /// Bit i is set when input i's value dies at this op and is read by no other input of it,
  /// so a kernel may write its output into that buffer (OpKernelContext::
  /// forward_input_or_allocate_output). Inputs past the 64th are never forwarded.
  uint64_t forwardable_inputs = 0;
};

/// The executable form of one Run signature.
struct ExecutionPlan {
  /// The slot reference inputs point at: always empty.
  static constexpr int kNoValueSlot = 0;

  std::vector<PlanNode> nodes;   ///< In execution order.
  std::vector<int> input_slots;  ///< Slot of each input of each node (see input_offset).
  std::vector<int> feed_slots;   ///< Slot of each feed, in the order given to Build.
  std::vector<int> fetch_slots;  ///< Slot of each fetch, in the order given to Build.
  int num_slots = 0;             ///< Size of the per-run value array.

  /// Plans a run. `feeds`, `fetches` and `targets` belong to one graph; resources for the
  /// planned ops are created in `resources`.
  static ExecutionPlan Build(const std::vector<Output>& feeds, const std::vector<Output>& fetches,
                             const std::vector<Operation*>& targets, ResourceMgr& resources);

 private:
  // The steps of Build, in order (execution_plan.cc).
  using SlotMap = std::unordered_map<Output, int>;
  void AddNode(const Operation& op, const std::unordered_set<Output>& fed, SlotMap& slot_of,
               ResourceMgr& resources);
  static ResourceBase* RefInputResource(const Operation& op, int i, ResourceMgr& resources);
  std::vector<int> LastReaders() const;
  void AddReleases(const std::vector<int>& last_reader);
  void MarkForwardableInputs(const std::vector<int>& last_reader);
};

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_EXECUTION_PLAN_H_
