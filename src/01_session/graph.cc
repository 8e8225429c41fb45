#include "src/01_session/graph.h"

#include <algorithm>

namespace mts {

namespace {

// `controls` without duplicates and without the ops already reached through `inputs`:
// such a control input adds nothing.
std::vector<Operation*> UniqueControlInputs(const std::vector<Output>& inputs,
                                            const std::vector<Operation*>& controls) {
  std::vector<Operation*> unique;
  for (Operation* c : controls) {
    if (std::find(unique.begin(), unique.end(), c) != unique.end()) continue;
    if (std::any_of(inputs.begin(), inputs.end(), [c](const Output& in) { return in.op() == c; })) {
      continue;
    }
    unique.push_back(c);
  }
  return unique;
}

}  // namespace

Operation* Graph::AddOperation(const std::string& type, const std::string& name,
                               std::vector<Output> inputs, AttrMap attrs,
                               std::vector<Operation*> control_inputs) {
  const OpDef& def = OpRegistry::Global().Lookup(type);
  std::lock_guard<std::mutex> lock(mu_);
  CheckNotFinalizedLocked("add an operation");
  // Compute the name first (without claiming it) so every error below can name the op.
  const std::string base = name.empty() ? type : name;
  const std::string scoped = name_scope_.empty() ? base : name_scope_ + "/" + base;
  CheckInputs(def, type, scoped, inputs, control_inputs);
  ShapeContext ctx{scoped, inputs, attrs, {}, {}};
  def.shape_fn(ctx);  // Throws ValueError/TypeError; nothing has been changed yet.

  auto op = std::unique_ptr<Operation>(new Operation);
  op->name_ = UniqueNameLocked(base);
  op->type_ = type;
  op->id_ = static_cast<int>(ops_.size());
  op->graph_ = this;
  op->def_ = &def;
  op->inputs_ = std::move(inputs);
  for (const auto& scope : control_dependencies_) {
    control_inputs.insert(control_inputs.end(), scope.begin(), scope.end());
  }
  op->control_inputs_ = UniqueControlInputs(op->inputs_, control_inputs);
  op->attrs_ = std::move(attrs);
  op->output_dtypes_ = std::move(ctx.output_dtypes);
  op->output_shapes_ = std::move(ctx.output_shapes);
  Operation* raw = op.get();
  ops_by_name_[raw->name_] = raw;
  ops_.push_back(std::move(op));
  return raw;
}

void Graph::CheckInputs(const OpDef& def, const std::string& type, const std::string& scoped,
                        const std::vector<Output>& inputs,
                        const std::vector<Operation*>& control_inputs) const {
  if (def.num_inputs >= 0 && static_cast<int>(inputs.size()) != def.num_inputs) {
    throw ValueError("Op '" + scoped + "' (" + type + ") takes " + std::to_string(def.num_inputs) +
                     " inputs, got " + std::to_string(inputs.size()));
  }
  for (const Output& in : inputs) {
    if (in.op() == nullptr) throw ValueError("Op '" + scoped + "' got a null input");
    if (in.graph() != this) {
      throw ValueError("Tensor '" + in.name() + "' must be from the same graph as op '" + scoped +
                       "': the tensor's graph is different from this op's graph. " +
                       "Build an op and its inputs in one graph.");
    }
  }
  for (Operation* c : control_inputs) {
    if (c->graph() != this) {
      throw ValueError("Control input '" + c->name() + "' of op '" + scoped +
                       "' is from another graph");
    }
  }
}

Operation* Graph::FindOperation(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = ops_by_name_.find(name);
  return it == ops_by_name_.end() ? nullptr : it->second;
}

Operation* Graph::GetOperationByName(const std::string& name) const {
  Operation* op = FindOperation(name);
  if (op == nullptr) {
    throw ValueError("The name '" + name + "' refers to an Operation not in the graph.");
  }
  return op;
}

Output Graph::GetTensorByName(const std::string& name) const {
  const auto colon = name.rfind(':');
  if (colon == std::string::npos || colon + 1 == name.size()) {
    throw ValueError("The name '" + name +
                     "' looks like an Operation name, not a Tensor name; tensor names have "
                     "the form '<op_name>:<output_index>'.");
  }
  const std::string op_name = name.substr(0, colon);
  int index = 0;
  try {
    // std::stoi alone would read "op:1x" as output 1; the whole suffix must be the index.
    size_t parsed = 0;
    index = std::stoi(name.substr(colon + 1), &parsed);
    if (colon + 1 + parsed != name.size()) throw std::invalid_argument("trailing characters");
  } catch (const std::exception&) {
    throw ValueError("The name '" + name +
                     "' has a malformed output index. Tensor names "
                     "are '<op name>:<output index>', such as 'dense/w:0'.");
  }
  Operation* op = FindOperation(op_name);
  if (op == nullptr) {
    throw ValueError("The name '" + name + "' refers to a Tensor which does not exist. The " +
                     "operation, '" + op_name + "', does not exist in the graph. Check the " +
                     "spelling and the name scope ('dense/w:0', not 'w:0').");
  }
  if (index < 0 || index >= op->num_outputs()) {
    throw ValueError("The name '" + name + "' refers to a Tensor which does not exist. The " +
                     "operation, '" + op_name + "', exists but only has " +
                     std::to_string(op->num_outputs()) + " outputs.");
  }
  return Output(op, index);
}

std::vector<Operation*> Graph::operations() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Operation*> result;
  result.reserve(ops_.size());
  for (const auto& op : ops_) result.push_back(op.get());
  return result;
}

Operation* Graph::OperationById(int id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return ops_[id].get();
}

int Graph::num_ops() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(ops_.size());
}

void Graph::Finalize(const std::string& when) {
  std::lock_guard<std::mutex> lock(mu_);
  finalized_ = true;
  finalized_when_ = when.empty() ? "by a call of Graph::Finalize()" : when;
}

void Graph::UnsafeUnfinalize() {
  std::lock_guard<std::mutex> lock(mu_);
  finalized_ = false;
}

bool Graph::finalized() const {
  std::lock_guard<std::mutex> lock(mu_);
  return finalized_;
}

void Graph::CheckNotFinalizedLocked(const char* what) const {
  if (finalized_) {
    throw RuntimeError(std::string("Graph is finalized and cannot be modified (tried to ") + what +
                       "). It was finalized " + finalized_when_ +
                       ". Build every op (summaries, savers, the ops you will run later) before "
                       "then; a MonitoredSession's graph is writable again after its Close.");
  }
}

void Graph::AddToCollection(const std::string& key, std::any value) {
  std::lock_guard<std::mutex> lock(mu_);
  CheckNotFinalizedLocked("add to collection");
  collections_[key].push_back(std::move(value));
}

int Graph::CollectionSize(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = collections_.find(key);
  return it == collections_.end() ? 0 : static_cast<int>(it->second.size());
}

void Graph::ClearCollection(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  CheckNotFinalizedLocked("clear a collection");
  collections_.erase(key);
}

std::vector<std::string> Graph::collection_keys() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> keys;
  for (const auto& [key, items] : collections_) {
    if (!items.empty()) keys.push_back(key);
  }
  return keys;
}

int64_t Graph::seed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return seed_;
}

void Graph::set_seed(int64_t seed) {
  std::lock_guard<std::mutex> lock(mu_);
  seed_ = seed;
}

std::string Graph::UniqueName(const std::string& base) {
  std::lock_guard<std::mutex> lock(mu_);
  return UniqueNameLocked(base);
}

// [mts:unique-name]
std::string Graph::UniqueNameLocked(const std::string& base) {
  // A name ending in '/' is a scope name taken earlier (TensorFlow's convention): it names
  // an op exactly, as a Variable's op is named after the scope holding its initializer.
  if (!base.empty() && base.back() == '/') return base.substr(0, base.size() - 1);
  // TensorFlow's scheme: the first use of a name takes it as is, later uses get "_1", "_2",
  // skipping any suffix that was itself taken explicitly.
  const std::string name = name_scope_.empty() ? base : name_scope_ + "/" + base;
  int& count = names_in_use_[name];
  if (count == 0) {
    count = 1;
    return name;
  }
  std::string candidate;
  do {
    candidate = name + "_" + std::to_string(count++);
  } while (names_in_use_.count(candidate) > 0);
  names_in_use_[candidate] = 1;
  return candidate;
}
// [mts:unique-name-end]

std::string Graph::PushNameScope(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string previous = name_scope_;
  name_scope_ = name.empty() ? std::string() : UniqueNameLocked(name);
  return previous;
}

std::string Graph::current_name_scope() const {
  std::lock_guard<std::mutex> lock(mu_);
  return name_scope_;
}

void Graph::PopNameScope(const std::string& previous) {
  std::lock_guard<std::mutex> lock(mu_);
  name_scope_ = previous;
}

void Graph::PushControlDependencies(std::vector<Operation*> ops) {
  std::lock_guard<std::mutex> lock(mu_);
  control_dependencies_.push_back(std::move(ops));
}

void Graph::PopControlDependencies() {
  std::lock_guard<std::mutex> lock(mu_);
  control_dependencies_.pop_back();
}

// ---- The default graph ----------------------------------------------------------------------

namespace {

// The process-wide default graph, used by threads that opened no DefaultGraphScope.
std::mutex global_graph_mu;
Graph* global_graph = nullptr;  // Guarded by global_graph_mu; replaced by ResetDefaultGraph.

// Each thread's stack of graphs made default by DefaultGraphScope.
std::vector<Graph*>& ThreadGraphStack() {
  thread_local std::vector<Graph*> stack;
  return stack;
}

}  // namespace

Graph& GetDefaultGraph() {
  auto& stack = ThreadGraphStack();
  if (!stack.empty()) return *stack.back();
  std::lock_guard<std::mutex> lock(global_graph_mu);
  if (global_graph == nullptr) global_graph = new Graph;
  return *global_graph;
}

void ResetDefaultGraph() {
  if (!ThreadGraphStack().empty()) {
    throw RuntimeError(
        "Do not use ResetDefaultGraph() to clear nested graphs. If you need a cleared graph, "
        "exit the nesting and create a new graph.");
  }
  std::lock_guard<std::mutex> lock(global_graph_mu);
  delete global_graph;
  global_graph = new Graph;
}

DefaultGraphScope::DefaultGraphScope(Graph& graph) { ThreadGraphStack().push_back(&graph); }

DefaultGraphScope::~DefaultGraphScope() { ThreadGraphStack().pop_back(); }

NameScope::NameScope(const std::string& name) : NameScope(GetDefaultGraph(), name) {}

NameScope::NameScope(Graph& graph, const std::string& name) : graph_(graph) {
  previous_ = graph_.PushNameScope(name);
  name_ = graph_.current_name_scope();
}

NameScope::~NameScope() { graph_.PopNameScope(previous_); }

ControlDependencies::ControlDependencies(std::vector<Operation*> ops)
    : graph_(ops.empty() ? GetDefaultGraph() : *ops.front()->graph()) {
  graph_.PushControlDependencies(std::move(ops));
}

ControlDependencies::~ControlDependencies() { graph_.PopControlDependencies(); }

Graph& GraphOf(const std::vector<Output>& inputs, const std::string& op_name) {
  if (inputs.empty()) return GetDefaultGraph();
  Graph* g = inputs.front().graph();
  for (const Output& in : inputs) {
    if (in.graph() != g) {
      throw ValueError("Tensor '" + in.name() + "' must be from the same graph as Tensor '" +
                       inputs.front().name() + "' (inputs of " + op_name +
                       "). Build an op and its inputs in one graph.");
    }
  }
  return *g;
}

}  // namespace mts
