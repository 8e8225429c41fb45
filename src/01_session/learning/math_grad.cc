// math_grad.cc: the gradient functions of the math ops, and the two helper ops they need.
//
//   Session  <-- runs the gradient ops Gradients() (gradients.h) builds from these
//
// Each function receives the gradient of an op's output and returns the gradients of its
// inputs, built from ordinary ops. Broadcasting makes one subtlety: when y = x + b adds a row
// b to every row of x, b's gradient is the sum of the output gradient over the rows. The
// helper op SumToShapeOf undoes any broadcast mts performs, at run time, so these functions
// need not know the static shapes. ReductionGrad spreads a reduction's gradient back over the
// elements it reduced.
//
// TensorFlow: tensorflow/python/ops/math_grad.py.
#include <algorithm>
#include <cmath>

#include "src/01_session/array_ops.h"
#include "src/01_session/learning/gradients.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/op_kernel_context.h"
#include "src/01_session/tensor_types.h"

namespace mts {

namespace {

// ---- SumToShapeOf(grad, x): grad summed over the dimensions along which x was broadcast ----

void SumToShapeOfShape(ShapeContext& ctx) {
  ctx.AddOutput(ctx.inputs[0].dtype(), ctx.inputs[1].shape());
}
// [mts:sum-to-shape]
void SumToShapeOfKernel(OpKernelContext& ctx) {
  const Tensor& grad = ctx.input(0);
  const TensorShape& target = ctx.input(1).shape();
  if (grad.shape() == target) {
    ctx.set_output(0, grad);  // No broadcast happened: pass the buffer on.
    return;
  }
  Tensor& out = ctx.allocate_output(0, target);
  DispatchDataType(grad.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      if (target.num_elements() == 1 && target.rank() <= 1) {
        out.flat<T>()(0) = grad.flat<T>().sum();  // A scalar met every element.
      } else if (grad.shape().rank() == 2 && target.num_elements() == grad.shape().dim(1)) {
        // A row ([M] or [1,M]) met every row of an [N,M] matrix.
        out.flat<T>() = grad.matrix<T>().colwise().sum().transpose().array();
      } else {
        throw InvalidArgumentError("Cannot sum a gradient of shape " +
                                       grad.shape().ToString() + " to shape " +
                                       target.ToString(),
                                   ctx.op().name());
      }
    }
  });
}
// [mts:sum-to-shape-end]
const OpRegistration sum_to_shape_op({"SumToShapeOf", SumToShapeOfShape, SumToShapeOfKernel});
const NotDifferentiable sum_to_shape_nd("SumToShapeOf");

Output SumToShapeOf(const Output& grad, const Output& x) {
  return GraphOf({grad, x}, "SumToShapeOf")
      .AddOperation("SumToShapeOf", "SumToShapeOf", {grad, x})
      ->output(0);
}

// ---- ReductionGrad(grad, x, y): spread a reduction's gradient over what it reduced ----------

void ReductionGradShape(ShapeContext& ctx) {
  ctx.AddOutput(ctx.inputs[1].dtype(), ctx.inputs[1].shape());
}

// Views x's shape as [outer, n, inner] around the reduced axis (all elements: [1, size, 1]).
void SplitAroundAxis(const TensorShape& shape, const Operation& op, int64_t& outer, int64_t& n,
                     int64_t& inner) {
  outer = 1, n = shape.num_elements(), inner = 1;
  if (!op.attr<bool>("has_axis")) return;
  int axis = static_cast<int>(op.attr<int64_t>("axis"));
  if (axis < 0) axis += shape.rank();  // The forward op accepted a negative axis.
  n = shape.dim(axis);
  for (int d = 0; d < axis; ++d) outer *= shape.dim(d);
  for (int d = axis + 1; d < shape.rank(); ++d) inner *= shape.dim(d);
}

void ReductionGradKernel(OpKernelContext& ctx) {
  const Tensor& grad = ctx.input(0);
  const Tensor& x = ctx.input(1);
  const Tensor& y = ctx.input(2);
  const std::string& kind = ctx.op().attr<std::string>("kind");
  int64_t outer, n, inner;
  SplitAroundAxis(x.shape(), ctx.op(), outer, n, inner);
  Tensor& out = ctx.allocate_output(0, x.shape());
  DispatchDataType(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      const T* g = grad.data<T>();
      const T* xs = x.data<T>();
      const T* ys = y.data<T>();
      T* o = out.data<T>();
      for (int64_t a = 0; a < outer; ++a) {
        for (int64_t i = 0; i < inner; ++i) {
          const int64_t r = a * inner + i;  // Index into the reduced tensor.
          T scale = g[r];
          if (kind == "mean") scale /= static_cast<T>(n);
          int64_t ties = 0;
          if (kind == "max") {
            for (int64_t k = 0; k < n; ++k) ties += xs[(a * n + k) * inner + i] == ys[r];
          }
          for (int64_t k = 0; k < n; ++k) {
            const int64_t e = (a * n + k) * inner + i;
            if (kind == "max") {
              o[e] = xs[e] == ys[r] ? scale / static_cast<T>(ties) : T(0);
            } else {
              o[e] = scale;
            }
          }
        }
      }
    }
  });
}
const OpRegistration reduction_grad_op({"ReductionGrad", ReductionGradShape, ReductionGradKernel});
const NotDifferentiable reduction_grad_nd("ReductionGrad");

std::vector<Output> ReductionGrad(const char* kind, const Operation& op,
                                  const std::vector<Output>& grads) {
  // The reduction ops carry an "axis" attribute only when they reduce one axis.
  AttrMap attrs{{"kind", std::string(kind)},
                {"has_axis", op.HasAttr("axis")},
                {"axis", op.HasAttr("axis") ? op.attr<int64_t>("axis") : int64_t{0}}};
  Output x = op.input(0);
  Output y = op.output(0);
  return {x.graph()->AddOperation("ReductionGrad", "ReductionGrad", {grads[0], x, y}, attrs)
              ->output(0)};
}

Output ScalarLike(const Output& x, double value) {
  return Constant(x.dtype() == DataType::kDouble ? Tensor::Scalar(value)
                                                 : Tensor::Scalar(static_cast<float>(value)));
}

// ---- Gradient functions ---------------------------------------------------------------------

using Grads = std::vector<Output>;

// [mts:add-grad]
Grads AddGrad(const Operation& op, const Grads& g) {
  return {SumToShapeOf(g[0], op.input(0)), SumToShapeOf(g[0], op.input(1))};
}
// [mts:add-grad-end]
Grads SubGrad(const Operation& op, const Grads& g) {
  return {SumToShapeOf(g[0], op.input(0)), SumToShapeOf(Neg(g[0]), op.input(1))};
}
Grads MulGrad(const Operation& op, const Grads& g) {
  const Output& x = op.input(0);
  const Output& y = op.input(1);
  return {SumToShapeOf(Mul(g[0], y), x), SumToShapeOf(Mul(g[0], x), y)};
}
Grads RealDivGrad(const Operation& op, const Grads& g) {
  const Output& x = op.input(0);
  const Output& y = op.input(1);
  // d(x/y)/dy = -x / y^2.
  return {SumToShapeOf(Div(g[0], y), x),
          SumToShapeOf(Neg(Div(Mul(g[0], x), Square(y))), y)};
}
Grads NegGrad(const Operation&, const Grads& g) { return {Neg(g[0])}; }
Grads SquareGrad(const Operation& op, const Grads& g) {
  return {Mul(g[0], Mul(ScalarLike(op.input(0), 2.0), op.input(0)))};
}
Grads SqrtGrad(const Operation& op, const Grads& g) {
  Output y = op.output(0);
  return {Div(Mul(g[0], ScalarLike(y, 0.5)), y)};  // d sqrt(x) = 1 / (2 sqrt(x)).
}
Grads ExpGrad(const Operation& op, const Grads& g) {
  return {Mul(g[0], op.output(0))};  // d e^x = e^x.
}
Grads LogGrad(const Operation& op, const Grads& g) { return {Div(g[0], op.input(0))}; }

// [mts:matmul-grad]
Grads MatMulGrad(const Operation& op, const Grads& g) {
  const Output& a = op.input(0);
  const Output& b = op.input(1);
  const bool ta = op.attr<bool>("transpose_a");
  const bool tb = op.attr<bool>("transpose_b");
  // For C = A B: dA = dC B^T and dB = A^T dC; the transposed forms follow by symmetry.
  if (!ta && !tb) return {MatMul(g[0], b, false, true), MatMul(a, g[0], true, false)};
  if (!ta && tb) return {MatMul(g[0], b, false, false), MatMul(g[0], a, true, false)};
  if (ta && !tb) return {MatMul(b, g[0], false, true), MatMul(a, g[0], false, false)};
  return {MatMul(b, g[0], true, true), MatMul(g[0], a, true, true)};
}
// [mts:matmul-grad-end]

Grads SumGrad(const Operation& op, const Grads& g) { return ReductionGrad("sum", op, g); }
Grads MeanGrad(const Operation& op, const Grads& g) { return ReductionGrad("mean", op, g); }
Grads MaxGrad(const Operation& op, const Grads& g) { return ReductionGrad("max", op, g); }

Grads CastGrad(const Operation& op, const Grads& g) {
  const DataType from = op.input(0).dtype();
  if (!IsFloating(from) || !IsFloating(op.output_dtype(0))) return {Output()};
  return {Cast(g[0], from)};
}

Grads ReshapeGrad(const Operation& op, const Grads& g) {
  const TensorShape& shape = op.input(0).shape();
  if (!shape.has_rank()) {
    throw ValueError("Gradient of '" + op.name() + "' needs the input's rank");
  }
  std::vector<int64_t> dims = shape.dims();
  if (std::count(dims.begin(), dims.end(), TensorShape::kUnknownDim) > 1) {
    throw ValueError("Gradient of '" + op.name() + "' needs at most one unknown dimension in " +
                     shape.ToString());
  }
  return {Reshape(g[0], dims)};
}

Grads PassThroughGrad(const Operation&, const Grads& g) { return {g[0]}; }

const GradientRegistration add_grad("Add", AddGrad);
const GradientRegistration sub_grad("Sub", SubGrad);
const GradientRegistration mul_grad("Mul", MulGrad);
const GradientRegistration div_grad("RealDiv", RealDivGrad);
const GradientRegistration neg_grad("Neg", NegGrad);
const GradientRegistration square_grad("Square", SquareGrad);
const GradientRegistration sqrt_grad("Sqrt", SqrtGrad);
const GradientRegistration exp_grad("Exp", ExpGrad);
const GradientRegistration log_grad("Log", LogGrad);
const GradientRegistration matmul_grad("MatMul", MatMulGrad);
const GradientRegistration sum_grad("Sum", SumGrad);
const GradientRegistration mean_grad("Mean", MeanGrad);
const GradientRegistration max_grad("Max", MaxGrad);
const GradientRegistration cast_grad("Cast", CastGrad);
const GradientRegistration reshape_grad("Reshape", ReshapeGrad);
const GradientRegistration check_numerics_grad("CheckNumerics", PassThroughGrad);

// Ops whose outputs are not smooth functions of their inputs.
const NotDifferentiable less_nd("Less");
const NotDifferentiable less_equal_nd("LessEqual");
const NotDifferentiable greater_nd("Greater");
const NotDifferentiable greater_equal_nd("GreaterEqual");
const NotDifferentiable equal_nd("Equal");
const NotDifferentiable not_equal_nd("NotEqual");
const NotDifferentiable argmax_nd("ArgMax");

}  // namespace

}  // namespace mts
