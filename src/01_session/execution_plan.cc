#include "src/01_session/execution_plan.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace mts {

// [mts:needed-ops]
// Walks back from the fetches and targets, collecting the ops a run must execute. A fed
// tensor cuts the walk: its producer is not needed for that value.
std::vector<const Operation*> NeededOps(const std::unordered_set<Output>& fed,
                                        const std::vector<Output>& fetches,
                                        const std::vector<Operation*>& targets) {
  // [mts:lab 01_session]
  std::unordered_set<const Operation*> seen;
  std::vector<const Operation*> stack;
  auto visit = [&](const Operation* op) {
    if (seen.insert(op).second) stack.push_back(op);
  };
  for (const Output& f : fetches) {
    if (fed.count(f) == 0) visit(f.op());
  }
  for (Operation* t : targets) visit(t);
  while (!stack.empty()) {
    const Operation* op = stack.back();
    stack.pop_back();
    for (const Output& in : op->inputs()) {
      if (fed.count(in) == 0) visit(in.op());
    }
    for (const Operation* c : op->control_inputs()) visit(c);
  }
  std::vector<const Operation*> ops(seen.begin(), seen.end());
  // Creation order is a topological order: an op's inputs existed before it was made.
  std::sort(ops.begin(), ops.end(),
            [](const Operation* a, const Operation* b) { return a->id() < b->id(); });
  return ops;
  // [mts:lab-end]
}
// [mts:needed-ops-end]

// [mts:plan-build]
// Four steps: a slot for every value (feeds first, then each needed op's outputs, with
// its inputs resolved to slots), the fetches' slots, which node releases each value, and
// which inputs a node may overwrite. The last is a fast path: a plan that forwards
// nothing runs the same, with more allocations.
ExecutionPlan ExecutionPlan::Build(const std::vector<Output>& feeds,
                                   const std::vector<Output>& fetches,
                                   const std::vector<Operation*>& targets, ResourceMgr& resources) {
  // [mts:lab 01_session]
  ExecutionPlan plan;
  const std::unordered_set<Output> fed(feeds.begin(), feeds.end());
  SlotMap slot_of;
  plan.num_slots = 1;  // Slot 0 (kNoValueSlot) stays empty: what reference inputs point at.
  for (const Output& f : feeds) {
    slot_of[f] = plan.num_slots;
    plan.feed_slots.push_back(plan.num_slots++);
  }
  for (const Operation* op : NeededOps(fed, fetches, targets)) {
    plan.AddNode(*op, fed, slot_of, resources);
  }
  for (const Output& f : fetches) plan.fetch_slots.push_back(slot_of.at(f));

  const std::vector<int> last_reader = plan.LastReaders();
  plan.AddReleases(last_reader);
  plan.MarkForwardableInputs(last_reader);
  return plan;
  // [mts:lab-end]
}
// [mts:plan-build-end]

// Appends the node of `op`: slots for its outputs (a fed output keeps its feed's slot),
// the slots its inputs are read from, and the resources it reaches.
void ExecutionPlan::AddNode(const Operation& op, const std::unordered_set<Output>& fed,
                            SlotMap& slot_of, ResourceMgr& resources) {
  // [mts:lab 01_session]
  PlanNode node;
  node.op = &op;
  node.kernel = op.def().kernel;
  node.output_base = num_slots;
  num_slots += op.num_outputs();
  for (int i = 0; i < op.num_outputs(); ++i) {
    const Output out = op.output(i);
    if (fed.count(out) == 0) slot_of[out] = node.output_base + i;
  }
  node.input_offset = static_cast<int>(input_slots.size());
  node.num_inputs = op.num_inputs();
  for (int i = 0; i < op.num_inputs(); ++i) {
    const Output& in = op.input(i);
    if (i < op.def().num_ref_inputs) {
      node.ref_resources.push_back(RefInputResource(op, i, resources));
      input_slots.push_back(kNoValueSlot);
      continue;
    }
    input_slots.push_back(slot_of.at(in));
    if (in.op()->def().outputs_are_refs && !op.def().all_inputs_are_refs && fed.count(in) == 0) {
      node.check_initialized.push_back(i);
    }
  }
  if (op.def().resource_owner != nullptr) {
    const Operation* owner = op.def().resource_owner(op);
    node.resource = resources.LookupOrCreate(*owner, owner->def().resource_factory);
  }
  nodes.push_back(std::move(node));
  // [mts:lab-end]
}

// A reference input (Assign's variable) is reached through its resource, not a value:
// materialising it would keep a second handle on the variable's buffer and defeat
// in-place updates.
ResourceBase* ExecutionPlan::RefInputResource(const Operation& op, int i, ResourceMgr& resources) {
  // [mts:lab 01_session]
  const Output& in = op.input(i);
  const Operation& owner = *in.op();
  if (owner.def().resource_factory == nullptr) {
    throw InvalidArgumentError("Input " + std::to_string(i) + " of '" + op.name() +
                                   "' must be a variable, got '" + in.name() + "'",
                               op.name());
  }
  return resources.LookupOrCreate(owner, owner.def().resource_factory);
  // [mts:lab-end]
}

// The index of the last node that reads each slot, -1 for none. An output nobody reads
// dies with the node that made it.
std::vector<int> ExecutionPlan::LastReaders() const {
  // [mts:lab 01_session]
  std::vector<int> last_reader(num_slots, -1);
  for (int n = 0; n < static_cast<int>(nodes.size()); ++n) {
    const PlanNode& node = nodes[n];
    for (int i = 0; i < node.num_inputs; ++i) {
      last_reader[input_slots[node.input_offset + i]] = n;
    }
    for (int i = 0; i < node.op->num_outputs(); ++i) {
      if (last_reader[node.output_base + i] < n) last_reader[node.output_base + i] = n;
    }
  }
  return last_reader;
  // [mts:lab-end]
}

// Release each value after its last reader; fetched values live to the end of the run.
void ExecutionPlan::AddReleases(const std::vector<int>& last_reader) {
  // [mts:lab 01_session]
  std::vector<bool> fetched(num_slots, false);
  for (int s : fetch_slots) fetched[s] = true;
  for (int s = kNoValueSlot + 1; s < num_slots; ++s) {
    if (!fetched[s] && last_reader[s] >= 0) nodes[last_reader[s]].release.push_back(s);
  }
  // [mts:lab-end]
}

// [mts:forwardable-inputs]
// An input may lend its buffer to the op's output when this op is its last reader, it is
// not fetched, and it is not a feed (the caller's tensor is never written). It must also
// be read through no other input of the same op. Whether the buffer is really free is
// known only at run time (a variable or a fetched tensor may share it): the kernel checks
// the use count then.
void ExecutionPlan::MarkForwardableInputs(const std::vector<int>& last_reader) {
  // [mts:lab 01_session]
  std::vector<bool> fetched_or_fed(num_slots, false);
  for (int s : fetch_slots) fetched_or_fed[s] = true;
  for (int s : feed_slots) fetched_or_fed[s] = true;
  for (int n = 0; n < static_cast<int>(nodes.size()); ++n) {
    PlanNode& node = nodes[n];
    const int* slots = input_slots.data() + node.input_offset;
    for (int i = node.op->def().num_ref_inputs; i < std::min(node.num_inputs, 64); ++i) {
      const int s = slots[i];
      if (fetched_or_fed[s] || last_reader[s] != n) continue;
      if (std::count(slots, slots + node.num_inputs, s) == 1) {
        node.forwardable_inputs |= uint64_t{1} << i;
      }
    }
  }
  // [mts:lab-end]
}
// [mts:forwardable-inputs-end]

}  // namespace mts
