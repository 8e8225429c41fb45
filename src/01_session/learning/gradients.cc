#include "src/01_session/learning/gradients.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "src/01_session/op_kernel_context.h"
#include "src/01_session/tensor_types.h"

namespace mts {

namespace {

// Op type -> gradient function; a null function marks a NotDifferentiable type.
std::unordered_map<std::string, GradFn>& GradientTable() {
  static auto* table = new std::unordered_map<std::string, GradFn>;  // Never destroyed.
  return *table;
}

void RegisterGradient(const std::string& op_type, GradFn fn) {
  if (!GradientTable().emplace(op_type, fn).second) {
    throw AlreadyExistsError("Gradient for op type '" + op_type + "' is registered twice");
  }
}

// ---- AddN and OnesLike: the ops the algorithm itself needs ----------------------------------

void AddNShape(ShapeContext& ctx) {
  if (ctx.inputs.empty()) throw ValueError("AddN '" + ctx.op_name + "' needs at least one input");
  TensorShape shape = ctx.inputs[0].shape();
  for (const Output& in : ctx.inputs) {
    if (in.dtype() != ctx.inputs[0].dtype()) {
      throw TypeError("AddN '" + ctx.op_name + "': inputs have different dtypes");
    }
    if (!IsNumeric(in.dtype())) {
      throw TypeError("AddN '" + ctx.op_name + "' needs numeric inputs");
    }
    shape = shape.MergeWith(in.shape());
  }
  ctx.AddOutput(ctx.inputs[0].dtype(), shape);
}
void AddNKernel(OpKernelContext& ctx) {
  const Tensor& first = ctx.input(0);
  Tensor& out = ctx.forward_input_or_allocate_output({0}, 0, first.shape());
  DispatchDataType(first.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      auto sum = out.flat<T>();
      if (!out.SharesBufferWith(first)) sum = first.flat<T>();  // Else it holds them already.
      for (int i = 1; i < ctx.op().num_inputs(); ++i) {
        if (ctx.input(i).shape() != first.shape()) {
          throw InvalidArgumentError("AddN: inputs have shapes " + first.shape().ToString() +
                                     " and " + ctx.input(i).shape().ToString());
        }
        sum += ctx.input(i).flat<T>();
      }
    }
  });
}
const OpRegistration add_n_op({"AddN", AddNShape, AddNKernel});

void SameShape(ShapeContext& ctx) { ctx.AddOutput(ctx.inputs[0].dtype(), ctx.inputs[0].shape()); }
void OnesLikeKernel(OpKernelContext& ctx) {
  Tensor& out = ctx.allocate_output(0, ctx.input(0).shape());
  DispatchDataType(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_arithmetic_v<T>) out.flat<T>().setConstant(static_cast<T>(1));
  });
}
const OpRegistration ones_like_op({"OnesLike", SameShape, OnesLikeKernel});

// Gradients of AddN: each input gets the output's gradient unchanged.
std::vector<Output> AddNGrad(const Operation& op, const std::vector<Output>& grads) {
  return std::vector<Output>(op.num_inputs(), grads[0]);
}
const GradientRegistration add_n_grad("AddN", AddNGrad);
const GradientRegistration identity_grad(
    "Identity", [](const Operation&, const std::vector<Output>& grads) {
      return std::vector<Output>{grads[0]};
    });
const NotDifferentiable ones_like_nd("OnesLike");

// The ops lying on some path from an x to a y: reachable forward from the xs and backward
// from the ys. Only these need gradients.
std::unordered_set<const Operation*> OpsBetween(const std::vector<Output>& xs,
                                                const std::vector<Output>& ys) {
  std::unordered_set<const Operation*> from_ys;
  std::vector<const Operation*> stack;
  for (const Output& y : ys) {
    if (from_ys.insert(y.op()).second) stack.push_back(y.op());
  }
  while (!stack.empty()) {
    const Operation* op = stack.back();
    stack.pop_back();
    for (const Output& in : op->inputs()) {
      if (from_ys.insert(in.op()).second) stack.push_back(in.op());
    }
  }
  // Forward from the xs, in creation order (consumers are created after producers).
  std::unordered_set<const Operation*> between;
  std::unordered_set<Output> reached(xs.begin(), xs.end());
  for (Operation* op : ys.front().graph()->operations()) {
    if (from_ys.count(op) == 0) continue;
    bool on_path = false;
    for (const Output& x : xs) on_path |= (x.op() == op);
    for (const Output& in : op->inputs()) on_path |= reached.count(in) > 0;
    if (!on_path) continue;
    between.insert(op);
    for (int i = 0; i < op->num_outputs(); ++i) reached.insert(op->output(i));
  }
  return between;
}

// [mts:gradients-summed]
// The sum of the contributions `t` has received (one AddN, built the first time it is
// asked for and then kept in their place), or a null Output if none has arrived.
Output Summed(std::unordered_map<Output, std::vector<Output>>& contributions, const Output& t) {
  // [mts:lab 01_learning]
  auto it = contributions.find(t);
  if (it == contributions.end() || it->second.empty()) return Output();
  if (it->second.size() > 1) it->second = {AddN(it->second)};
  return it->second.front();
  // [mts:lab-end]
}
// [mts:gradients-summed-end]

// [mts:backprop-through]
// One step of the walk back: the summed gradients of `op`'s outputs go through its
// gradient function, under the name scope "<op>_grad", and what comes out is filed as
// contributions to those of its inputs that lie `between` the xs and the ys.
void BackpropThrough(Graph& g, const Operation& op,
                     const std::unordered_set<const Operation*>& between,
                     std::unordered_map<Output, std::vector<Output>>& contributions) {
  // [mts:lab 01_learning]
  std::vector<Output> grad_outputs;
  bool any = false;
  for (int i = 0; i < op.num_outputs(); ++i) {
    grad_outputs.push_back(Summed(contributions, op.output(i)));
    any |= grad_outputs.back().op() != nullptr;
  }
  if (!any) return;
  // An op none of whose inputs lies between the xs and ys (an x itself, such as a
  // variable's read) needs no gradient function: nothing upstream wants its result.
  bool feeds_back = false;
  for (const Output& in : op.inputs()) feeds_back |= between.count(in.op()) > 0;
  if (!feeds_back) return;
  auto fn = GradientTable().find(op.type());
  if (fn == GradientTable().end()) {
    throw ValueError("No gradient defined for operation '" + op.name() + "' (op type: " +
                     op.type() + ")");
  }
  if (fn->second == nullptr) return;  // NotDifferentiable: the gradient stops here.
  std::vector<Output> grad_inputs;
  {
    NameScope op_scope(g, op.name() + "_grad");
    grad_inputs = fn->second(op, grad_outputs);
  }
  for (int i = 0; i < op.num_inputs(); ++i) {
    const Output& in = op.input(i);
    if (grad_inputs[i].op() != nullptr && between.count(in.op()) > 0) {
      contributions[in].push_back(grad_inputs[i]);
    }
  }
  // [mts:lab-end]
}
// [mts:backprop-through-end]

}  // namespace

GradientRegistration::GradientRegistration(const std::string& op_type, GradFn fn) {
  RegisterGradient(op_type, fn);
}

NotDifferentiable::NotDifferentiable(const std::string& op_type) {
  RegisterGradient(op_type, nullptr);
}

// [mts:gradients]
std::vector<Output> Gradients(const std::vector<Output>& ys, const std::vector<Output>& xs,
                              const std::vector<Output>& grad_ys, const std::string& name) {
  // [mts:lab 01_learning]
  if (ys.empty()) throw ValueError("Gradients: ys is empty");
  std::vector<Output> all = ys;
  all.insert(all.end(), xs.begin(), xs.end());
  Graph& g = GraphOf(all, name);
  NameScope scope(g, name);

  // The gradient contributions received by each tensor, summed when first needed.
  std::unordered_map<Output, std::vector<Output>> contributions;
  for (size_t i = 0; i < ys.size(); ++i) {
    contributions[ys[i]].push_back(i < grad_ys.size() ? grad_ys[i] : OnesLike(ys[i]));
  }

  const std::unordered_set<const Operation*> between = OpsBetween(xs, ys);
  // Reverse creation order: every consumer of an op is handled before the op itself.
  std::vector<const Operation*> order(between.begin(), between.end());
  std::sort(order.begin(), order.end(),
            [](const Operation* a, const Operation* b) { return a->id() > b->id(); });
  for (const Operation* op : order) BackpropThrough(g, *op, between, contributions);

  std::vector<Output> result;
  for (const Output& x : xs) result.push_back(Summed(contributions, x));
  return result;
  // [mts:lab-end]
}
// [mts:gradients-end]

Output AddN(const std::vector<Output>& inputs, const std::string& name) {
  if (inputs.size() == 1) return inputs.front();
  return GraphOf(inputs, name).AddOperation("AddN", name, inputs)->output(0);
}

Output OnesLike(const Output& input, const std::string& name) {
  return GraphOf({input}, name).AddOperation("OnesLike", name, {input})->output(0);
}

}  // namespace mts
