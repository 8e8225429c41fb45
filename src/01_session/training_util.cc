#include "src/01_session/training_util.h"

#include <iostream>

namespace mts {

namespace {

Graph& OrDefault(Graph* graph) { return graph != nullptr ? *graph : GetDefaultGraph(); }

constexpr const char* kGlobalStepName = "global_step";

bool IsIntegerDtype(DataType dtype) {
  return dtype == DataType::kInt32 || dtype == DataType::kInt64;
}

// A Variable handle for the op `op` (a VariableV2) or for its value tensor, found in any
// collection of the graph: an Operation alone does not know the handle's other parts.
std::optional<Variable> FindVariable(const Graph& graph, const Output& tensor) {
  for (const std::string& key : graph.collection_keys()) {
    for (const Variable& v : graph.GetCollection<Variable>(key)) {
      if (v.op() == tensor.op() || v.value() == tensor) return v;
    }
  }
  return std::nullopt;
}

// TensorFlow's assert_global_step: an integer variable, scalar when its shape is known.
void CheckGlobalStep(const Variable& step) {
  if (!IsIntegerDtype(step.dtype())) {
    throw TypeError("Global step '" + step.name() + "' must have an integer dtype, got " +
                    DataTypeName(step.dtype()));
  }
  if (step.shape().IsFullyDefined() && step.shape().rank() != 0) {
    throw TypeError("Global step '" + step.name() + "' must be a scalar, got shape " +
                    step.shape().ToString());
  }
}

Variable ResolveToVariable(const Graph& graph, const Output& tensor) {
  std::optional<Variable> v = FindVariable(graph, tensor);
  if (!v) {
    throw TypeError("Global step '" + tensor.name() +
                    "' is not a variable; mts needs the global step to be a Variable");
  }
  return *v;
}

// The AssignAdd behind both IncrementGlobalStep overloads, in the current name scope.
Output AddToStep(Graph& g, const Variable& step, int64_t increment,
                 std::vector<Operation*> control_inputs, const std::string& name) {
  if (!IsIntegerDtype(step.dtype())) {
    throw TypeError("Cannot increment '" + step.name() + "' of dtype " +
                    DataTypeName(step.dtype()) + ": a step must have an integer dtype");
  }
  // Variable's layout: a scope "name/" holds the helper constant, the op takes the scope's
  // own name.
  NameScope scope(g, name);
  const Tensor value = step.dtype() == DataType::kInt64
                           ? Tensor::Scalar<int64_t>(increment)
                           : Tensor::Scalar<int32_t>(static_cast<int32_t>(increment));
  Output delta = g.AddOperation("Const", "value", {}, {{"value", value}})->output(0);
  return g
      .AddOperation("AssignAdd", scope.name() + "/", {step.op()->output(0), delta}, {},
                    std::move(control_inputs))
      ->output(0);
}

}  // namespace

// [mts:create-global-step]
Variable CreateGlobalStep(Graph* graph) {
  Graph& g = OrDefault(graph);
  if (GetGlobalStep(&g)) throw ValueError("\"global_step\" already exists.");
  // The step lives in the root scope whatever scope the caller is in: every layer looks it
  // up by the one name "global_step".
  DefaultGraphScope as_default(g);
  NameScope root(g, "");
  VariableOptions options;
  options.name = kGlobalStepName;
  options.trainable = false;  // An optimizer must never move the counter.
  options.collections = {GraphKeys::kGlobalVariables, GraphKeys::kGlobalStep};
  return Variable(Tensor::Scalar<int64_t>(0), options);
}
// [mts:create-global-step-end]

std::optional<Variable> GetGlobalStep(Graph* graph) {
  Graph& g = OrDefault(graph);
  const int count = g.CollectionSize(GraphKeys::kGlobalStep);
  std::optional<Variable> step;
  if (count > 1) {
    // TensorFlow logs and answers "no step" rather than guess which one is meant.
    std::cerr << "ERROR: Multiple tensors in global_step collection.\n";
    return std::nullopt;
  }
  if (count == 1) {
    std::vector<Variable> vars = g.GetCollection<Variable>(GraphKeys::kGlobalStep);
    std::vector<Output> tensors = g.GetCollection<Output>(GraphKeys::kGlobalStep);
    if (!vars.empty()) {
      step = vars.front();
    } else if (!tensors.empty()) {
      step = ResolveToVariable(g, tensors.front());
    } else {
      throw TypeError("The item in collection '" + std::string(GraphKeys::kGlobalStep) +
                      "' is neither a Variable nor a tensor");
    }
  } else {
    // An empty collection: fall back on the name, for graphs made without CreateGlobalStep.
    Operation* op = g.FindOperation(kGlobalStepName);
    if (op == nullptr || op->num_outputs() == 0) return std::nullopt;
    step = ResolveToVariable(g, op->output(0));
  }
  CheckGlobalStep(*step);
  return step;
}

Variable GetOrCreateGlobalStep(Graph* graph) {
  Graph& g = OrDefault(graph);
  if (std::optional<Variable> step = GetGlobalStep(&g)) return *step;
  return CreateGlobalStep(&g);
}

int64_t GlobalStepValue(SessionInterface& session, const Output& step) {
  if (step.op() != nullptr && !IsIntegerDtype(step.dtype())) {
    throw TypeError("GlobalStepValue: '" + step.name() + "' has dtype " +
                    DataTypeName(step.dtype()) + ", not an integer dtype");
  }
  const Tensor value = session.Run(step);
  if (value.dtype() == DataType::kInt32) return value.scalar<int32_t>();
  return value.scalar<int64_t>();
}

// [mts:global-step-read]
std::optional<Output> GetOrCreateGlobalStepRead(Graph* graph) {
  Graph& g = OrDefault(graph);
  const int cached = g.CollectionSize(GraphKeys::kGlobalStepReadOpCache);
  if (cached > 1) {
    throw RuntimeError("Collection '" + std::string(GraphKeys::kGlobalStepReadOpCache) +
                       "' holds " + std::to_string(cached) + " items; it must hold one.");
  }
  if (cached == 1) {
    std::vector<Output> reads = g.GetCollection<Output>(GraphKeys::kGlobalStepReadOpCache);
    if (reads.empty()) {
      throw TypeError("The item in collection '" +
                      std::string(GraphKeys::kGlobalStepReadOpCache) + "' is not a tensor");
    }
    return reads.front();
  }
  std::optional<Variable> step = GetGlobalStep(&g);
  if (!step) return std::nullopt;
  // "global_step/" (trailing slash) re-enters the step's own scope from anywhere, so the read
  // is "global_step/hook_read" whatever scope the caller is in. A copy made by Identity shares
  // the buffer, so an AssignAdd later in the same run copies before it writes: the fetched
  // read keeps the old value.
  NameScope scope(g, step->name() + "/");
  Output read = g.AddOperation("Identity", "hook_read", {step->value()})->output(0);
  if (!read.op()->control_inputs().empty()) {
    throw ValueError("GetOrCreateGlobalStepRead: the read of '" + step->name() +
                     "' was made inside a ControlDependencies scope; make it before opening "
                     "the scope, or every fetch of the step would run that scope's ops.");
  }
  g.AddToCollection(GraphKeys::kGlobalStepReadOpCache, read);
  return read;
}

Output IncrementGlobalStep(int64_t increment, Graph* graph) {
  Graph& g = OrDefault(graph);
  std::optional<Variable> step = GetGlobalStep(&g);
  if (!step) {
    throw ValueError(
        "The global step must be created (GetOrCreateGlobalStep) before it is incremented.");
  }
  Output read = *GetOrCreateGlobalStepRead(&g);
  NameScope scope(g, step->name() + "/");
  return AddToStep(g, *step, increment, {read.op()}, "AssignAdd");
}
// [mts:global-step-read-end]

Output IncrementGlobalStep(const Variable& step, int64_t increment,
                           const std::vector<Operation*>& after, const std::string& name) {
  Graph& g = *step.graph();
  std::vector<Operation*> control_inputs = after;
  std::optional<Variable> global_step = GetGlobalStep(&g);
  if (global_step && *global_step == step) {
    control_inputs.push_back(GetOrCreateGlobalStepRead(&g)->op());
  }
  return AddToStep(g, step, increment, std::move(control_inputs), name);
}

}  // namespace mts
