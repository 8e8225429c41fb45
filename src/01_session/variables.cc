#include "src/01_session/variables.h"

#include <algorithm>

#include "src/01_session/array_ops.h"
#include "src/01_session/op_kernel_context.h"
#include "src/01_session/tensor_types.h"
#include "src/01_session/variable_resource.h"

namespace mts {

Tensor& VariableResource::MutableValue(const std::string& variable_name,
                                       const std::string& op_name) {
  if (!value.IsInitialized()) {
    throw FailedPreconditionError("Attempting to use uninitialized value " + variable_name,
                                  op_name);
  }
  // In place when this variable holds the only handle on its buffer: the common case in a
  // training step, since the executor releases each read as soon as its last reader ran.
  if (!value.RefCountIsOne()) value = value.Copy();
  return value;
}

std::shared_ptr<ResourceBase> VariableResource::Create(const Operation&) {
  return std::make_shared<VariableResource>();
}

namespace {

const Operation* Self(const Operation& op) { return &op; }

// ---- VariableV2: outputs the current value, or an unset Tensor --------------------------------

void VariableShape(ShapeContext& ctx) {
  ctx.AddOutput(ctx.attr<DataType>("dtype"), ctx.attr<TensorShape>("shape"));
}
void VariableKernel(OpKernelContext& ctx) {
  auto& var = ctx.resource<VariableResource>();
  std::lock_guard<std::mutex> lock(var.mu);
  ctx.set_output(0, var.value);  // Unset stays unset; the executor checks value readers.
}
const OpRegistration variable_op([] {
  OpDef def{"VariableV2", VariableShape, VariableKernel};
  def.stateful = true;
  def.outputs_are_refs = true;
  def.resource_owner = Self;
  def.resource_factory = VariableResource::Create;
  return def;
}());

// ---- Assign, AssignAdd, AssignSub -----------------------------------------------------------

void AssignShape(ShapeContext& ctx) {
  const Output& ref = ctx.inputs[0];
  const Output& value = ctx.inputs[1];
  if (!ref.op()->def().outputs_are_refs) {
    throw TypeError("'" + ctx.op_name + "' needs a variable as its first input, got '" +
                    ref.name() + "'");
  }
  if (ref.dtype() != value.dtype()) {
    throw TypeError(std::string("'") + ctx.op_name + "': cannot assign a value of dtype " +
                    DataTypeName(value.dtype()) + " to variable '" + ref.op()->name() +
                    "' of dtype " + DataTypeName(ref.dtype()) + "; assign a value of dtype " +
                    DataTypeName(ref.dtype()) + " instead");
  }
  if (!ref.shape().IsCompatibleWith(value.shape())) {
    throw ValueError("'" + ctx.op_name + "': shapes " + ref.shape().ToString() + " and " +
                     value.shape().ToString() + " are incompatible (variable '" + ref.op()->name() +
                     "'); assign a value of shape " + ref.shape().ToString() + " instead");
  }
  ctx.AddOutput(ref.dtype(), ref.shape());
}

void CheckRunTimeShape(OpKernelContext& ctx, const Tensor& value) {
  const Output& ref = ctx.op().input(0);
  if (value.shape() != ref.shape()) {
    throw InvalidArgumentError(
        "Assign requires shapes of both tensors to match. lhs shape= " + ref.shape().ToString() +
            " rhs shape= " + value.shape().ToString(),
        ctx.op().name());
  }
}

void AssignKernel(OpKernelContext& ctx) {
  const Tensor& value = ctx.input(1);
  CheckRunTimeShape(ctx, value);
  auto& var = ctx.ref_resource<VariableResource>(0);
  std::lock_guard<std::mutex> lock(var.mu);
  var.value = value;  // Shares the buffer; a later in-place update copies first.
  ctx.set_output(0, var.value);
}

// `sign` is +1 for AssignAdd and -1 for AssignSub.
template <int sign>
void AssignUpdateKernel(OpKernelContext& ctx) {
  const Tensor& delta = ctx.input(1);
  CheckRunTimeShape(ctx, delta);
  auto& var = ctx.ref_resource<VariableResource>(0);
  std::lock_guard<std::mutex> lock(var.mu);
  Tensor& value = var.MutableValue(ctx.op().input(0).op()->name(), ctx.op().name());
  DispatchDataType(delta.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      if (sign > 0) {
        value.flat<T>() += delta.flat<T>();
      } else {
        value.flat<T>() -= delta.flat<T>();
      }
    }
  });
  ctx.set_output(0, var.value);
}

void AssignUpdateShape(ShapeContext& ctx) {
  if (!IsNumeric(ctx.inputs[1].dtype())) {
    throw TypeError("'" + ctx.op_name + "' needs a numeric value, got " +
                    DataTypeName(ctx.inputs[1].dtype()));
  }
  AssignShape(ctx);
}

OpDef AssignDef(const char* type, ShapeFn shape, KernelFn kernel) {
  OpDef def{type, shape, kernel};
  def.stateful = true;
  def.num_ref_inputs = 1;
  def.num_inputs = 2;
  return def;
}
const OpRegistration assign_op(AssignDef("Assign", AssignShape, AssignKernel));
const OpRegistration assign_add_op(AssignDef("AssignAdd", AssignUpdateShape,
                                             AssignUpdateKernel<+1>));
const OpRegistration assign_sub_op(AssignDef("AssignSub", AssignUpdateShape,
                                             AssignUpdateKernel<-1>));

// ---- CountUpTo: the old value, and the variable one higher, until a limit ---------------------

void CountUpToShape(ShapeContext& ctx) {
  const Output& ref = ctx.inputs[0];
  if (!ref.op()->def().outputs_are_refs) {
    throw TypeError("'" + ctx.op_name + "' needs a variable as its first input, got '" +
                    ref.name() + "'");
  }
  // TensorFlow's op accepts int32 and int64 only, and says so in its words.
  if (ref.dtype() != DataType::kInt32 && ref.dtype() != DataType::kInt64) {
    throw TypeError("Value passed to parameter 'ref' has DataType " +
                    std::string(DataTypeName(ref.dtype())) +
                    " not in list of allowed values: int32, int64");
  }
  if (ref.shape().rank() != 0) {
    throw ValueError("Shape must be rank 0 but is rank " + std::to_string(ref.shape().rank()) +
                     " for '" + ctx.op_name +
                     "' (op: 'CountUpTo') with input shapes: " + ref.shape().ToString() + ".");
  }
  ctx.AddOutput(ref.dtype(), TensorShape{});
}

// [mts:count-up-to]
void CountUpToKernel(OpKernelContext& ctx) {
  const int64_t limit = ctx.op().attr<int64_t>("limit");
  auto& var = ctx.ref_resource<VariableResource>(0);
  // Read, compare and increment under one lock: two runs racing for the last count cannot
  // both get it.
  std::lock_guard<std::mutex> lock(var.mu);
  Tensor& value = var.MutableValue(ctx.op().input(0).op()->name(), ctx.op().name());
  DispatchDataType(value.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>) {
      const T before = value.scalar<T>();
      if (before >= limit) {
        throw OutOfRangeError("Reached limit of " + std::to_string(limit), ctx.op().name());
      }
      value.flat<T>()(0) = before + 1;
      ctx.set_output(0, Tensor::Scalar<T>(before));
    }
  });
}
// [mts:count-up-to-end]
const OpRegistration count_up_to_op([] {
  OpDef def{"CountUpTo", CountUpToShape, CountUpToKernel};
  def.stateful = true;
  def.num_ref_inputs = 1;
  def.num_inputs = 1;
  return def;
}());

// ---- IsVariableInitialized, ReportUninitializedVariables ----------------------------------

void IsInitializedShape(ShapeContext& ctx) { ctx.AddOutput(DataType::kBool, TensorShape{}); }
void IsInitializedKernel(OpKernelContext& ctx) {
  ctx.set_output(0, Tensor::Scalar(ctx.input(0).IsInitialized()));
}
const OpRegistration is_initialized_op([] {
  OpDef def{"IsVariableInitialized", IsInitializedShape, IsInitializedKernel};
  def.all_inputs_are_refs = true;
  return def;
}());

void ReportShape(ShapeContext& ctx) {
  for (const Output& in : ctx.inputs) {
    if (!in.op()->def().outputs_are_refs) {
      throw TypeError("'" + ctx.op_name + "': '" + in.name() + "' is not a variable");
    }
  }
  ctx.AddOutput(DataType::kString, TensorShape{TensorShape::kUnknownDim});
}
// [mts:report-uninitialized]
void ReportKernel(OpKernelContext& ctx) {
  std::vector<std::string> names;
  for (int i = 0; i < ctx.op().num_inputs(); ++i) {
    if (!ctx.input(i).IsInitialized()) names.push_back(ctx.op().input(i).op()->name());
  }
  ctx.set_output(0, Tensor::Vector(names));
}
// [mts:report-uninitialized-end]
const OpRegistration report_op([] {
  OpDef def{"ReportUninitializedVariables", ReportShape, ReportKernel};
  def.all_inputs_are_refs = true;
  return def;
}());

VariableOptions NamedOptions(const std::string& name) {
  VariableOptions options;
  options.name = name;
  return options;
}

}  // namespace

// [mts:variable-build]
void Variable::Build(const Output& initial_value, const VariableOptions& options) {
  if (!initial_value.shape().IsFullyDefined()) {
    throw ValueError("initial_value of variable '" + options.name +
                     "' must have a fully defined shape, got " + initial_value.shape().ToString());
  }
  Graph& g = *initial_value.graph();
  // TensorFlow's layout: a scope "w/" holds the helpers, and the variable op takes the
  // scope's own name "w" (the trailing '/' asks for that exact name).
  NameScope scope(g, options.name);
  const std::string var_name = scope.name() + "/";
  const Output& init = initial_value;
  op_ = g.AddOperation("VariableV2", var_name, {},
                       {{"dtype", init.dtype()}, {"shape", init.shape()}});
  initial_value_ = init;
  initializer_ = g.AddOperation("Assign", "Assign", {op_->output(0), init})->output(0).op();
  read_ = g.AddOperation("Identity", "read", {op_->output(0)})->output(0);

  std::vector<std::string> collections = options.collections;
  if (collections.empty()) collections.push_back(GraphKeys::kGlobalVariables);
  if (options.trainable && std::find(collections.begin(), collections.end(),
                                     GraphKeys::kTrainableVariables) == collections.end()) {
    collections.push_back(GraphKeys::kTrainableVariables);
  }
  for (const std::string& key : collections) g.AddToCollection(key, *this);
}
// [mts:variable-build-end]

Variable::Variable(const Output& initial_value, const VariableOptions& options) {
  Build(initial_value, options);
}

Variable::Variable(const Tensor& initial_value, const VariableOptions& options) {
  // Made under the variable's scope by Build; here only a temporary in the default graph
  // would leak a stray op, so build the constant inside the scope directly.
  Graph& g = GetDefaultGraph();
  NameScope scope(g, options.name);
  Output init = g.AddOperation("Const", "initial_value", {}, {{"value", initial_value}})->output(0);
  VariableOptions exact = options;
  exact.name = scope.name() + "/";  // Re-enter the same scope instead of making "w_1".
  Build(init, exact);
}

Variable::Variable(const Tensor& initial_value, const std::string& name)
    : Variable(initial_value, NamedOptions(name)) {}

Variable::Variable(const Output& initial_value, const std::string& name)
    : Variable(initial_value, NamedOptions(name)) {}

const std::string& Variable::name() const { return op_->name(); }
DataType Variable::dtype() const { return op_->output_dtype(0); }
const TensorShape& Variable::shape() const { return op_->output_shape(0); }
Graph* Variable::graph() const { return op_->graph(); }

Output Variable::Assign(const Output& value, const std::string& name) const {
  return graph()->AddOperation("Assign", name, {op_->output(0), value})->output(0);
}

Output Variable::AssignAdd(const Output& delta, const std::string& name) const {
  return graph()->AddOperation("AssignAdd", name, {op_->output(0), delta})->output(0);
}

Output Variable::AssignSub(const Output& delta, const std::string& name) const {
  return graph()->AddOperation("AssignSub", name, {op_->output(0), delta})->output(0);
}

Output Variable::CountUpTo(int64_t limit, const std::string& name) const {
  return graph()->AddOperation("CountUpTo", name, {op_->output(0)}, {{"limit", limit}})->output(0);
}

Output CountUpTo(const Variable& ref, int64_t limit, const std::string& name) {
  return ref.CountUpTo(limit, name);
}

Variable LocalVariable(const Tensor& initial_value, const std::string& name) {
  VariableOptions options;
  options.name = name;
  options.trainable = false;
  options.collections = {GraphKeys::kLocalVariables};
  return Variable(initial_value, options);
}

namespace {
Graph& OrDefault(Graph* graph) { return graph != nullptr ? *graph : GetDefaultGraph(); }
}  // namespace

std::vector<Variable> GlobalVariables(Graph* graph) {
  return OrDefault(graph).GetCollection<Variable>(GraphKeys::kGlobalVariables);
}

std::vector<Variable> TrainableVariables(Graph* graph) {
  return OrDefault(graph).GetCollection<Variable>(GraphKeys::kTrainableVariables);
}

std::vector<Variable> LocalVariables(Graph* graph) {
  return OrDefault(graph).GetCollection<Variable>(GraphKeys::kLocalVariables);
}

Operation* VariablesInitializer(const std::vector<Variable>& variables, const std::string& name) {
  if (variables.empty()) return NoOp(name);
  std::vector<Operation*> initializers;
  for (const Variable& v : variables) initializers.push_back(v.initializer());
  return Group(initializers, name);
}

Operation* GlobalVariablesInitializer() { return VariablesInitializer(GlobalVariables(), "init"); }

Operation* LocalVariablesInitializer() { return VariablesInitializer(LocalVariables(), "init"); }

Output IsVariableInitialized(const Variable& variable, const std::string& name) {
  return variable.graph()
      ->AddOperation("IsVariableInitialized", name, {variable.op()->output(0)})
      ->output(0);
}

Output ReportUninitializedVariables(const std::vector<Variable>& variables,
                                    const std::string& name) {
  std::vector<Output> refs;
  for (const Variable& v : variables) refs.push_back(v.op()->output(0));
  Graph& g = variables.empty() ? GetDefaultGraph() : *variables.front().graph();
  return g.AddOperation("ReportUninitializedVariables", name, refs)->output(0);
}

Output ReportUninitializedVariables() {
  std::vector<Variable> all = GlobalVariables();
  for (const Variable& v : LocalVariables()) all.push_back(v);
  return ReportUninitializedVariables(all);
}

}  // namespace mts
