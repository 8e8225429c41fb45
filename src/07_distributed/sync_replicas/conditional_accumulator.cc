#include "src/07_distributed/sync_replicas/conditional_accumulator.h"

#include <utility>

#include "src/01_session/op_kernel_context.h"
#include "src/platform/errors.h"
#include "src/platform/logging.h"

namespace mts {
namespace {

constexpr char kAccumulatorType[] = "ConditionalAccumulator";

template <typename T>
void AddInto(Tensor& sum, const Tensor& grad) {
  T* out = sum.data<T>();
  const T* in = grad.data<T>();
  for (int64_t i = 0; i < sum.num_elements(); ++i) out[i] += in[i];
}

template <typename T>
Tensor Divided(const Tensor& sum, int32_t n) {
  Tensor mean(sum.dtype(), sum.shape());
  const T* in = sum.data<T>();
  T* out = mean.data<T>();
  for (int64_t i = 0; i < sum.num_elements(); ++i) out[i] = in[i] / static_cast<T>(n);
  return mean;
}

const Tensor& Input(const std::vector<Tensor>& inputs, size_t i, const std::string& op_name) {
  if (i >= inputs.size() || !inputs[i].IsInitialized()) {
    throw InvalidArgumentError(
        op_name + " is missing input " + std::to_string(i + 1) + "; the message is damaged.",
        op_name);
  }
  return inputs[i];
}

int64_t Int64Scalar(const Tensor& t, const std::string& op_name, const char* what) {
  if (t.dtype() != DataType::kInt64 || t.num_elements() != 1) {
    throw InvalidArgumentError(op_name + ": " + what + " must be an int64 scalar, got " +
                                   DataTypeName(t.dtype()) + " " + t.shape().ToString(),
                               op_name);
  }
  return t.scalar<int64_t>();
}

// ---- The ops ------------------------------------------------------------------------------

void AccumulatorShape(ShapeContext& ctx) {
  const DataType dtype = ctx.attr<DataType>("dtype");
  if (dtype != DataType::kFloat && dtype != DataType::kDouble) {
    throw TypeError("ConditionalAccumulator '" + ctx.op_name + "' holds float or double " +
                    "gradients, not " + DataTypeName(dtype));
  }
  ctx.AddOutput(DataType::kString, TensorShape{});  // A handle nothing reads.
}
void AccumulatorKernel(OpKernelContext& ctx) { ctx.set_output(0, Tensor::Scalar(ctx.op().name())); }
const Operation* Self(const Operation& op) { return &op; }
const OpRegistration accumulator_op([] {
  OpDef def{kAccumulatorType, AccumulatorShape, AccumulatorKernel};
  def.stateful = true;
  def.resource_owner = Self;
  def.resource_factory = ConditionalAccumulatorResource::Create;
  return def;
}());

void CheckHandle(const ShapeContext& ctx) {
  if (ctx.inputs.empty() || ctx.inputs[0].op()->type() != kAccumulatorType) {
    throw TypeError("'" + ctx.op_name + "' needs a ConditionalAccumulator as its first input");
  }
}
void ApplyShape(ShapeContext& ctx) {
  CheckHandle(ctx);
  if (ctx.inputs.size() != 3 || ctx.inputs[1].dtype() != DataType::kInt64) {
    throw TypeError("'" + ctx.op_name + "' takes the accumulator, an int64 local step and " +
                    "the gradient");
  }
  const Operation& owner = *ctx.inputs[0].op();
  if (ctx.inputs[2].dtype() != owner.attr<DataType>("dtype")) {
    throw TypeError("'" + ctx.op_name + "': the gradient is " +
                    DataTypeName(ctx.inputs[2].dtype()) + ", the accumulator holds " +
                    DataTypeName(owner.attr<DataType>("dtype")));
  }
}
void TakeShape(ShapeContext& ctx) {
  CheckHandle(ctx);
  const Operation& owner = *ctx.inputs[0].op();
  ctx.AddOutput(owner.attr<DataType>("dtype"), owner.attr<TensorShape>("shape"));
}
void SetStepShape(ShapeContext& ctx) {
  CheckHandle(ctx);
  if (ctx.inputs.size() != 2 || ctx.inputs[1].dtype() != DataType::kInt64) {
    throw TypeError("'" + ctx.op_name + "' takes the accumulator and an int64 step");
  }
}
void NumShape(ShapeContext& ctx) {
  CheckHandle(ctx);
  ctx.AddOutput(DataType::kInt32, TensorShape{});
}
const OpRegistration apply_op(SharedResourceOpDef("AccumulatorApplyGradient", ApplyShape));
const OpRegistration take_op(SharedResourceOpDef("AccumulatorTakeGradient", TakeShape));
const OpRegistration set_step_op(SharedResourceOpDef("AccumulatorSetGlobalStep", SetStepShape));
const OpRegistration num_op(SharedResourceOpDef("AccumulatorNumAccumulated", NumShape));

const bool registered = [] {
  RegisterSharedResourceType(kAccumulatorType, ConditionalAccumulatorResource::CreateShared);
  return true;
}();

}  // namespace

// ---- The resource -------------------------------------------------------------------------

ConditionalAccumulatorResource::ConditionalAccumulatorResource(std::string name, DataType dtype,
                                                               TensorShape shape)
    : name_(std::move(name)), dtype_(dtype), shape_(std::move(shape)) {
  (void)registered;
  if (dtype_ != DataType::kFloat && dtype_ != DataType::kDouble) {
    throw InvalidArgumentError("ConditionalAccumulator " + name_ +
                               " holds float or double gradients, not " + DataTypeName(dtype_));
  }
}

std::shared_ptr<ResourceBase> ConditionalAccumulatorResource::Create(const Operation& owner) {
  return CreateShared(SharedNameOf(owner), owner.attrs());
}

std::shared_ptr<SharedResource> ConditionalAccumulatorResource::CreateShared(
    const std::string& name, const AttrMap& attrs) {
  auto dtype = attrs.find("dtype");
  auto shape = attrs.find("shape");
  if (dtype == attrs.end() || !std::holds_alternative<DataType>(dtype->second) ||
      shape == attrs.end() || !std::holds_alternative<TensorShape>(shape->second)) {
    throw InvalidArgumentError("ConditionalAccumulator " + name +
                               " needs a dtype and a shape; the message is damaged.");
  }
  return std::make_shared<ConditionalAccumulatorResource>(name, std::get<DataType>(dtype->second),
                                                          std::get<TensorShape>(shape->second));
}

// [mts:accumulator-apply]
bool ConditionalAccumulatorResource::ApplyGrad(int64_t local_step, const Tensor& grad,
                                               const std::string& op_name) {
  std::lock_guard<std::mutex> lock(mu_);
  if (local_step < global_step_) {  // Computed before the last aggregation: stale.
    ++num_dropped_;
    return false;
  }
  const TensorShape& expected = counter_ > 0 ? sum_.shape() : shape_;
  if (grad.dtype() != dtype_ || (expected.IsFullyDefined() && grad.shape() != expected)) {
    throw InvalidArgumentError("Shape mismatch: ConditionalAccumulator " + name_ + " holds " +
                                   DataTypeName(dtype_) + " " + expected.ToString() + ", got " +
                                   DataTypeName(grad.dtype()) + " " + grad.shape().ToString(),
                               op_name);
  }
  if (counter_ == 0) {
    sum_ = grad.Copy();
  } else if (dtype_ == DataType::kFloat) {
    AddInto<float>(sum_, grad);
  } else {
    AddInto<double>(sum_, grad);
  }
  ++counter_;
  NotifyLocked();
  return true;
}
// [mts:accumulator-apply-end]

// [mts:accumulator-take]
std::optional<Tensor> ConditionalAccumulatorResource::TakeGrad(int32_t num_required,
                                                               const WaitLimit& wait,
                                                               const std::string& op_name) {
  if (num_required < 1) {
    throw InvalidArgumentError(
        "Argument num_required must be positive, but was " + std::to_string(num_required), op_name);
  }
  std::unique_lock<std::mutex> lock(mu_);
  if (!WaitLocked(
          lock, [&] { return counter_ >= num_required; }, wait, op_name,
          std::to_string(num_required) + " gradients in " + name_)) {
    return std::nullopt;
  }
  Tensor mean =
      dtype_ == DataType::kFloat ? Divided<float>(sum_, counter_) : Divided<double>(sum_, counter_);
  counter_ = 0;
  sum_ = Tensor();
  ++global_step_;  // Gradients of the round just taken are stale from now on.
  return mean;
}
// [mts:accumulator-take-end]

void ConditionalAccumulatorResource::SetGlobalStep(int64_t step) {
  std::lock_guard<std::mutex> lock(mu_);
  if (step < global_step_) {
    MTS_LOG(WARNING) << "ConditionalAccumulator " << name_ << ": setting the global step to "
                     << step << ", below its current " << global_step_ << ".";
  }
  global_step_ = step;
}

int32_t ConditionalAccumulatorResource::num_accumulated() {
  std::lock_guard<std::mutex> lock(mu_);
  return counter_;
}

int64_t ConditionalAccumulatorResource::global_step() {
  std::lock_guard<std::mutex> lock(mu_);
  return global_step_;
}

int64_t ConditionalAccumulatorResource::num_dropped() {
  std::lock_guard<std::mutex> lock(mu_);
  return num_dropped_;
}

std::optional<std::vector<Tensor>> ConditionalAccumulatorResource::RunOp(
    const std::string& op_type, const std::string& op_name, const std::vector<Tensor>& inputs,
    const AttrMap& attrs, const WaitLimit& wait) {
  if (op_type == "AccumulatorApplyGradient") {
    ApplyGrad(Int64Scalar(Input(inputs, 0, op_name), op_name, "the local step"),
              Input(inputs, 1, op_name), op_name);
    return std::vector<Tensor>{};
  }
  if (op_type == "AccumulatorTakeGradient") {
    auto n = attrs.find("num_required");
    if (n == attrs.end() || !std::holds_alternative<int64_t>(n->second)) {
      throw InvalidArgumentError(op_name + " has no num_required; the message is damaged.",
                                 op_name);
    }
    std::optional<Tensor> mean =
        TakeGrad(static_cast<int32_t>(std::get<int64_t>(n->second)), wait, op_name);
    if (!mean) return std::nullopt;
    return std::vector<Tensor>{std::move(*mean)};
  }
  if (op_type == "AccumulatorSetGlobalStep") {
    SetGlobalStep(Int64Scalar(Input(inputs, 0, op_name), op_name, "the new global step"));
    return std::vector<Tensor>{};
  }
  if (op_type == "AccumulatorNumAccumulated") {
    return std::vector<Tensor>{Tensor::Scalar(num_accumulated())};
  }
  throw InvalidArgumentError(op_type + " is not an op on a ConditionalAccumulator.", op_name);
}

// ---- The handle ---------------------------------------------------------------------------

ConditionalAccumulator::ConditionalAccumulator(DataType dtype, const TensorShape& shape,
                                               const std::string& shared_name,
                                               const std::string& name) {
  Graph& graph = GetDefaultGraph();
  // The default shared name is the op's own unique name; the trailing '/' asks for exactly it.
  const std::string unique = graph.UniqueName(name);
  op_ = graph.AddOperation(kAccumulatorType, unique + "/", {},
                           {{"dtype", dtype},
                            {"shape", shape},
                            {"shared_name", shared_name.empty() ? unique : shared_name}});
}

const std::string& ConditionalAccumulator::shared_name() const { return SharedNameOf(*op_); }

Operation* ConditionalAccumulator::ApplyGrad(const Output& grad, const Output& local_step,
                                             const std::string& name) const {
  return op_->graph()->AddOperation("AccumulatorApplyGradient",
                                    name.empty() ? op_->name() + "_ApplyGrad" : name,
                                    {op_->output(0), local_step, grad});
}

Output ConditionalAccumulator::TakeGrad(int32_t num_required, double wait_warning_secs,
                                        const std::string& wait_warning,
                                        const std::string& name) const {
  return op_->graph()
      ->AddOperation("AccumulatorTakeGradient", name.empty() ? op_->name() + "_TakeGrad" : name,
                     {op_->output(0)},
                     {{"num_required", static_cast<int64_t>(num_required)},
                      {"wait_warning_secs", wait_warning_secs},
                      {"wait_warning", wait_warning}})
      ->output(0);
}

Operation* ConditionalAccumulator::SetGlobalStep(const Output& new_global_step,
                                                 const std::string& name) const {
  return op_->graph()->AddOperation("AccumulatorSetGlobalStep",
                                    name.empty() ? op_->name() + "_SetGlobalStep" : name,
                                    {op_->output(0), new_global_step});
}

Output ConditionalAccumulator::NumAccumulated(const std::string& name) const {
  return op_->graph()
      ->AddOperation("AccumulatorNumAccumulated",
                     name.empty() ? op_->name() + "_NumAccumulated" : name, {op_->output(0)})
      ->output(0);
}

}  // namespace mts
