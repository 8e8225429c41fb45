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


ExecutionPlan ExecutionPlan::Build(const std::vector<Output>& feeds,
                                   const std::vector<Output>& fetches,
                                   const std::vector<Operation*>& targets,
                                   ResourceMgr& resources) {
  // [mts:lab 01_session]
  ExecutionPlan plan;
  std::unordered_set<Output> fed(feeds.begin(), feeds.end());
  std::unordered_map<Output, int> slot_of;
  plan.num_slots = 1;  // Slot 0 (kNoValueSlot) stays empty: what reference inputs point at.

  for (const Output& f : feeds) {
    slot_of[f] = plan.num_slots;
    plan.feed_slots.push_back(plan.num_slots++);
  }

  const std::vector<const Operation*> ops = NeededOps(fed, fetches, targets);
  for (const Operation* op : ops) {
    PlanNode node;
    node.op = op;
    node.kernel = op->def().kernel;
    node.output_base = plan.num_slots;
    plan.num_slots += op->num_outputs();
    for (int i = 0; i < op->num_outputs(); ++i) {
      Output out = op->output(i);
      if (fed.count(out) == 0) slot_of[out] = node.output_base + i;
    }
    node.input_offset = static_cast<int>(plan.input_slots.size());
    node.num_inputs = op->num_inputs();
    for (int i = 0; i < op->num_inputs(); ++i) {
      const Output& in = op->input(i);
      if (i < op->def().num_ref_inputs) {
        // A reference input (Assign's variable) is reached through its resource, not a
        // value: materialising it would keep a second handle on the variable's buffer and
        // defeat in-place updates.
        const Operation& owner = *in.op();
        if (owner.def().resource_factory == nullptr) {
          throw InvalidArgumentError("Input " + std::to_string(i) + " of '" + op->name() +
                                         "' must be a variable, got '" + in.name() + "'",
                                     op->name());
        }
        node.ref_resources.push_back(
            resources.LookupOrCreate(owner, owner.def().resource_factory));
        plan.input_slots.push_back(kNoValueSlot);
        continue;
      }
      plan.input_slots.push_back(slot_of.at(in));
      if (in.op()->def().outputs_are_refs && !op->def().all_inputs_are_refs &&
          fed.count(in) == 0) {
        node.check_initialized.push_back(i);
      }
    }
    if (op->def().resource_owner != nullptr) {
      const Operation* owner = op->def().resource_owner(*op);
      node.resource = resources.LookupOrCreate(*owner, owner->def().resource_factory);
    }
    plan.nodes.push_back(std::move(node));
  }

  for (const Output& f : fetches) plan.fetch_slots.push_back(slot_of.at(f));

  // Release each value after its last reader; fetched values live to the end of the run.
  std::vector<int> last_reader(plan.num_slots, -1);
  for (int n = 0; n < static_cast<int>(plan.nodes.size()); ++n) {
    const PlanNode& node = plan.nodes[n];
    for (int i = 0; i < node.num_inputs; ++i) {
      last_reader[plan.input_slots[node.input_offset + i]] = n;
    }
    // An output nobody reads dies with the op that made it.
    for (int i = 0; i < node.op->num_outputs(); ++i) {
      if (last_reader[node.output_base + i] < n) last_reader[node.output_base + i] = n;
    }
  }
  std::vector<bool> fetched(plan.num_slots, false);
  for (int s : plan.fetch_slots) fetched[s] = true;
  for (int s = kNoValueSlot + 1; s < plan.num_slots; ++s) {
    if (!fetched[s] && last_reader[s] >= 0) plan.nodes[last_reader[s]].release.push_back(s);
  }

  // [mts:forwardable-inputs]
  // An input may lend its buffer to the op's output when this op is its last reader, it is
  // not fetched, and it is not a feed (the caller's tensor is never written). It must also
  // be read through no other input of the same op. Whether the buffer is really free is
  // known only at run time (a variable or a fetched tensor may share it): the kernel checks
  // the use count then.
  std::vector<bool> is_feed(plan.num_slots, false);
  for (int s : plan.feed_slots) is_feed[s] = true;
  for (int n = 0; n < static_cast<int>(plan.nodes.size()); ++n) {
    PlanNode& node = plan.nodes[n];
    const int* slots = plan.input_slots.data() + node.input_offset;
    for (int i = node.op->def().num_ref_inputs; i < std::min(node.num_inputs, 64); ++i) {
      const int s = slots[i];
      if (fetched[s] || is_feed[s] || last_reader[s] != n) continue;
      if (std::count(slots, slots + node.num_inputs, s) == 1) {
        node.forwardable_inputs |= uint64_t{1} << i;
      }
    }
  }
  // [mts:forwardable-inputs-end]
  return plan;
  // [mts:lab-end]
}

}  // namespace mts
