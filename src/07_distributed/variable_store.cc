#include "src/07_distributed/variable_store.h"

#include <random>

#include "src/platform/errors.h"
#include "src/01_session/op_def.h"
#include "src/01_session/resource_mgr.h"
#include "src/01_session/variable_resource.h"
#include "src/07_distributed/tensor_coding.h"

namespace mts {
namespace {

uint64_t NewIncarnation() {
  std::random_device device;
  uint64_t value = 0;
  while (value == 0) value = (static_cast<uint64_t>(device()) << 32) ^ device();
  return value;
}

// [mts:ps-update-def]
// Refuses an update unless its op is one a parameter server may run: an op that changes the
// variables it takes by reference, all of them, and takes a fixed number of inputs.
// Anything else (an unknown op, a read, a save, a queue op) is refused, so a client's message
// can only ever do to the variables what a worker's optimizer could.
void CheckUpdateOp(const distributed::Update& update) {
  const OpDef& def = OpRegistry::Global().Lookup(update.type());  // NotFoundError if unknown.
  if (def.num_ref_inputs == 0 || def.num_inputs < 0) {
    throw InvalidArgumentError("On the parameter server, " + update.op_name() + " (" +
                                   update.type() +
                                   ") is not an op that updates variables; only ops such as "
                                   "Assign or ApplyGradientDescent can be sent as updates.",
                               update.op_name());
  }
  if (update.variables_size() != def.num_ref_inputs ||
      update.variables_size() + update.inputs_size() != def.num_inputs) {
    throw InvalidArgumentError(
        "On the parameter server, " + update.op_name() + " (" + update.type() + ") takes " +
            std::to_string(def.num_ref_inputs) + " variables and " +
            std::to_string(def.num_inputs - def.num_ref_inputs) + " other inputs, the update has " +
            std::to_string(update.variables_size()) + " and " +
            std::to_string(update.inputs_size()) + "; the message is damaged.",
        update.op_name());
  }
}
// [mts:ps-update-def-end]

}  // namespace

VariableStore::VariableStore()
    : incarnation_(NewIncarnation()), session_(std::make_unique<Session>(&graph_)) {}

void VariableStore::CheckIncarnation(uint64_t requested) const {
  // [mts:lab 07_distributed]
  if (requested != incarnation_) {
    throw AbortedError(
        "The parameter server restarted and lost its variables: it is "
        "incarnation " +
        std::to_string(incarnation_) + ", the session was made against incarnation " +
        std::to_string(requested) +
        ". Re-create the session (RecoverableSession does) so the chief "
        "restores the latest checkpoint.");
  }
  // [mts:lab-end]
}

Operation* VariableStore::VariableLocked(const distributed::VariableSpec& spec) {
  // [mts:lab 07_distributed]
  if (spec.name().empty()) {
    throw InvalidArgumentError("A variable on the wire has no name; the message is damaged.");
  }
  const TensorShape shape = DecodeDims(spec.dims());
  const DataType dtype = DecodeDtype(spec.dtype());
  auto it = variables_.find(spec.name());
  if (it != variables_.end()) {
    Operation* op = it->second;
    if (op->output_dtype(0) != dtype || op->output_shape(0) != shape) {
      throw InvalidArgumentError("Variable " + spec.name() + " is on the parameter server as " +
                                 DataTypeName(op->output_dtype(0)) + " " +
                                 op->output_shape(0).ToString() + ", but a client declares it as " +
                                 DataTypeName(dtype) + " " + shape.ToString() +
                                 "; all tasks must build the same model.");
    }
    return op;
  }
  // The trailing '/' asks the graph for exactly this name.
  Operation* op = graph_.AddOperation("VariableV2", spec.name() + "/", {},
                                      {{"dtype", dtype}, {"shape", shape}});
  variables_.emplace(spec.name(), op);
  return op;
  // [mts:lab-end]
}

distributed::ReadVariablesResponse VariableStore::Read(
    const distributed::ReadVariablesRequest& request) {
  // [mts:lab 07_distributed]
  std::lock_guard<std::mutex> lock(mu_);
  CheckIncarnation(request.incarnation());
  distributed::ReadVariablesResponse response;
  for (const distributed::VariableSpec& spec : request.variables()) {
    Operation* op = VariableLocked(spec);
    auto& var = *static_cast<VariableResource*>(
        session_->resources().LookupOrCreate(*op, VariableResource::Create));
    distributed::VariableValue* out = response.add_values();
    out->set_name(spec.name());
    std::lock_guard<std::mutex> var_lock(var.mu);
    if (var.value.IsInitialized()) {
      out->set_initialized(true);
      EncodeTensor(var.value, out->mutable_value());
    }
  }
  return response;
  // [mts:lab-end]
}

// [mts:ps-update-op]
const VariableStore::CachedUpdate& VariableStore::UpdateOpLocked(
    const distributed::Update& update, const std::vector<Tensor>& inputs) {
  // [mts:lab 07_distributed]
  // The signature: the op type, its variables, its inputs' dtypes and shapes, its attributes.
  std::string key = update.type();
  for (const auto& v : update.variables()) key += "|" + v.name();
  for (const Tensor& t : inputs) {
    key += std::string("|") + DataTypeName(t.dtype()) + t.shape().ToString();
  }
  const std::map<std::string, distributed::AttrProto> attrs(update.attrs().begin(),
                                                            update.attrs().end());
  for (const auto& [name, attr] : attrs) key += "|" + name + "=" + attr.SerializeAsString();
  auto it = update_ops_.find(key);
  if (it != update_ops_.end()) return it->second;

  std::vector<Operation*> variables;
  for (const auto& v : update.variables()) variables.push_back(VariableLocked(v));
  AttrMap op_attrs;
  for (const auto& [name, attr] : attrs) op_attrs[name] = DecodeAttr(attr);
  // The update is made once in a scratch graph first, over stand-ins of its variables. One
  // that cannot be made (inputs of the wrong shapes for its variables, a bad attribute)
  // throws there and leaves nothing behind in the store's graph, which lives as long as the
  // ps: a client's bad requests must not make it grow.
  {
    Graph scratch;
    std::vector<Operation*> stand_ins;  // Unnamed: a shape function sees dtypes and shapes.
    for (Operation* v : variables) {
      stand_ins.push_back(scratch.AddOperation(
          "VariableV2", "", {}, {{"dtype", v->output_dtype(0)}, {"shape", v->output_shape(0)}}));
    }
    MakeUpdateOp(scratch, stand_ins, inputs, update.type(), op_attrs);
  }
  return update_ops_.emplace(key, MakeUpdateOp(graph_, variables, inputs, update.type(), op_attrs))
      .first->second;
  // [mts:lab-end]
}
// [mts:ps-update-op-end]

VariableStore::CachedUpdate VariableStore::MakeUpdateOp(Graph& graph,
                                                        const std::vector<Operation*>& variables,
                                                        const std::vector<Tensor>& inputs,
                                                        const std::string& type,
                                                        const AttrMap& attrs) {
  CachedUpdate made;
  std::vector<Output> op_inputs;
  for (Operation* v : variables) op_inputs.push_back(v->output(0));
  for (const Tensor& t : inputs) {
    Output placeholder =
        graph
            .AddOperation("Placeholder", "input", {}, {{"dtype", t.dtype()}, {"shape", t.shape()}})
            ->output(0);
    made.placeholders.push_back(placeholder);
    op_inputs.push_back(placeholder);
  }
  made.op = graph.AddOperation(type, "update", op_inputs, attrs);
  return made;
}

void VariableStore::Apply(const distributed::ApplyUpdatesRequest& request) {
  // [mts:lab 07_distributed]
  std::lock_guard<std::mutex> lock(mu_);
  CheckIncarnation(request.incarnation());
  for (const distributed::Update& update : request.updates()) {
    CheckUpdateOp(update);  // Before anything is decoded or built.
    std::vector<Tensor> inputs;
    for (const auto& proto : update.inputs()) inputs.push_back(DecodeTensor(proto));
    try {
      const CachedUpdate& cached = UpdateOpLocked(update, inputs);
      FeedDict feeds;
      for (size_t i = 0; i < inputs.size(); ++i) feeds[cached.placeholders[i]] = inputs[i];
      session_->Run({}, feeds, {cached.op});
      ++num_updates_;
    } catch (const OpError& e) {
      ThrowOpError(e.code(),
                   "On the parameter server, applying " + update.op_name() + ": " + e.message(),
                   update.op_name());
    } catch (const std::invalid_argument& e) {  // ValueError, TypeError from building the op.
      throw InvalidArgumentError("On the parameter server, " + update.op_name() + " (" +
                                     update.type() + ") cannot be made: " + e.what(),
                                 update.op_name());
    }
  }
  // [mts:lab-end]
}

int VariableStore::num_graph_ops() const {
  std::lock_guard<std::mutex> lock(mu_);
  return graph_.num_ops();
}

int VariableStore::num_variables() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(variables_.size());
}

int64_t VariableStore::num_updates() const {
  std::lock_guard<std::mutex> lock(mu_);
  return num_updates_;
}

}  // namespace mts
