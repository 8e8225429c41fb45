#include "src/01_session/learning/training_ops.h"

#include <cmath>
#include <mutex>

#include "src/01_session/op_kernel_context.h"
#include "src/01_session/tensor_types.h"
#include "src/01_session/variable_resource.h"

namespace mts {

namespace {

// Shapes and dtypes: inputs [0, num_refs) are variables, `grad_input` must match input 0,
// every other input is a scalar of the same dtype.
template <int kNumRefs, int kGradInput>
void ApplyShape(ShapeContext& ctx) {
  const Output& var = ctx.inputs[0];
  if (!IsFloating(var.dtype())) {
    throw TypeError("'" + ctx.op_name + "' updates float variables only; '" + var.op()->name() +
                    "' is " + DataTypeName(var.dtype()));
  }
  for (int i = 0; i < static_cast<int>(ctx.inputs.size()); ++i) {
    const Output& in = ctx.inputs[i];
    if (in.dtype() != var.dtype()) {
      throw TypeError("'" + ctx.op_name + "': input '" + in.name() + "' is " +
                      DataTypeName(in.dtype()) + ", the variable is " + DataTypeName(var.dtype()));
    }
    if (i < kNumRefs || i == kGradInput) {
      if (!in.shape().IsCompatibleWith(var.shape())) {
        throw ValueError("'" + ctx.op_name + "': shape " + in.shape().ToString() + " of '" +
                         in.name() + "' does not match variable '" + var.op()->name() +
                         "' of shape " + var.shape().ToString());
      }
    } else if (in.shape().has_rank() && in.shape().rank() != 0) {
      throw ValueError("'" + ctx.op_name + "': '" + in.name() + "' must be a scalar, got " +
                       in.shape().ToString());
    }
  }
  ctx.AddOutput(var.dtype(), var.shape());
}

OpDef ApplyDef(const char* type, ShapeFn shape, KernelFn kernel, int num_refs, int num_inputs) {
  OpDef def{type, shape, kernel};
  def.stateful = true;
  def.num_ref_inputs = num_refs;
  def.num_inputs = num_inputs;
  return def;
}

void CheckGradShape(OpKernelContext& ctx, const Tensor& var, const Tensor& grad) {
  if (var.shape() != grad.shape()) {
    throw InvalidArgumentError("var and grad do not have the same shape: " +
                                   var.shape().ToString() + " vs " + grad.shape().ToString(),
                               ctx.op().name());
  }
}

const std::string& RefName(OpKernelContext& ctx, int i) { return ctx.op().input(i).op()->name(); }

// ---- ApplyGradientDescent(var, alpha, delta) ---------------------------------------------------

// [mts:apply-gradient-descent]
void ApplyGradientDescentKernel(OpKernelContext& ctx) {
  auto& var = ctx.ref_resource<VariableResource>(0);
  const Tensor& alpha = ctx.input(1);
  const Tensor& delta = ctx.input(2);
  std::lock_guard<std::mutex> lock(var.mu);
  Tensor& w = var.MutableValue(RefName(ctx, 0), ctx.op().name());
  CheckGradShape(ctx, w, delta);
  DispatchDataType(w.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      w.flat<T>() -= alpha.scalar<T>() * delta.flat<T>();
    }
  });
  ctx.set_output(0, w);
}
// [mts:apply-gradient-descent-end]
const OpRegistration apply_gd_op(ApplyDef("ApplyGradientDescent", ApplyShape<1, 2>,
                                          ApplyGradientDescentKernel, 1, 3));

// ---- ApplyMomentum(var, accum, lr, grad, momentum) -------------------------------------------

void ApplyMomentumKernel(OpKernelContext& ctx) {
  auto& var = ctx.ref_resource<VariableResource>(0);
  auto& accum = ctx.ref_resource<VariableResource>(1);
  const Tensor& lr = ctx.input(2);
  const Tensor& grad = ctx.input(3);
  const Tensor& momentum = ctx.input(4);
  const bool nesterov = ctx.op().attr<bool>("use_nesterov");
  std::scoped_lock lock(var.mu, accum.mu);  // Both, without risking lock-order deadlock.
  Tensor& w = var.MutableValue(RefName(ctx, 0), ctx.op().name());
  Tensor& a = accum.MutableValue(RefName(ctx, 1), ctx.op().name());
  CheckGradShape(ctx, w, grad);
  DispatchDataType(w.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      const T l = lr.scalar<T>(), mu = momentum.scalar<T>();
      auto g = grad.flat<T>();
      a.flat<T>() = a.flat<T>() * mu + g;
      if (nesterov) {
        w.flat<T>() -= g * l + a.flat<T>() * (l * mu);
      } else {
        w.flat<T>() -= a.flat<T>() * l;
      }
    }
  });
  ctx.set_output(0, w);
}
const OpRegistration apply_momentum_op(ApplyDef("ApplyMomentum", ApplyShape<2, 3>,
                                                ApplyMomentumKernel, 2, 5));

// ---- ApplyAdam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad) --------

void ApplyAdamKernel(OpKernelContext& ctx) {
  auto& var = ctx.ref_resource<VariableResource>(0);
  auto& m_var = ctx.ref_resource<VariableResource>(1);
  auto& v_var = ctx.ref_resource<VariableResource>(2);
  const Tensor& grad = ctx.input(9);
  std::scoped_lock lock(var.mu, m_var.mu, v_var.mu);
  Tensor& w = var.MutableValue(RefName(ctx, 0), ctx.op().name());
  Tensor& m = m_var.MutableValue(RefName(ctx, 1), ctx.op().name());
  Tensor& v = v_var.MutableValue(RefName(ctx, 2), ctx.op().name());
  CheckGradShape(ctx, w, grad);
  DispatchDataType(w.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      const T beta1_power = ctx.input(3).scalar<T>(), beta2_power = ctx.input(4).scalar<T>();
      const T lr = ctx.input(5).scalar<T>(), beta1 = ctx.input(6).scalar<T>();
      const T beta2 = ctx.input(7).scalar<T>(), epsilon = ctx.input(8).scalar<T>();
      const T lr_t = lr * std::sqrt(T(1) - beta2_power) / (T(1) - beta1_power);
      auto g = grad.flat<T>();
      m.flat<T>() += (g - m.flat<T>()) * (T(1) - beta1);
      v.flat<T>() += (g.square() - v.flat<T>()) * (T(1) - beta2);
      w.flat<T>() -= lr_t * m.flat<T>() / (v.flat<T>().sqrt() + epsilon);
    }
  });
  ctx.set_output(0, w);
}
const OpRegistration apply_adam_op(ApplyDef("ApplyAdam", ApplyShape<3, 9>, ApplyAdamKernel, 3, 10));

Output RefOf(const Variable& v) { return v.op()->output(0); }

}  // namespace

Output ApplyGradientDescent(const Variable& var, const Output& alpha, const Output& delta,
                            const std::string& name) {
  return var.graph()
      ->AddOperation("ApplyGradientDescent", name, {RefOf(var), alpha, delta})
      ->output(0);
}

Output ApplyMomentum(const Variable& var, const Variable& accum, const Output& lr,
                     const Output& grad, const Output& momentum, bool use_nesterov,
                     const std::string& name) {
  return var.graph()
      ->AddOperation("ApplyMomentum", name, {RefOf(var), RefOf(accum), lr, grad, momentum},
                     {{"use_nesterov", use_nesterov}})
      ->output(0);
}

Output ApplyAdam(const Variable& var, const Variable& m, const Variable& v,
                 const Output& beta1_power, const Output& beta2_power, const Output& lr,
                 const Output& beta1, const Output& beta2, const Output& epsilon,
                 const Output& grad, const std::string& name) {
  return var.graph()
      ->AddOperation("ApplyAdam", name,
                     {RefOf(var), RefOf(m), RefOf(v), beta1_power, beta2_power, lr, beta1, beta2,
                      epsilon, grad})
      ->output(0);
}

}  // namespace mts
