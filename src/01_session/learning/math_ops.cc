// The elementwise ops of math_ops.h: binary arithmetic and comparisons with broadcasting,
// unary arithmetic, and CheckNumerics. MatMul is in matmul_op.cc, the reductions and ArgMax
// in reduction_ops.cc.
#include "src/01_session/learning/math_ops.h"

#include "src/01_session/op_kernel_context.h"
#include "src/01_session/learning/op_util.h"
#include "src/01_session/tensor_types.h"

namespace mts {

namespace {

using internal::CheckDtype;
using internal::DtypeClass;
using internal::InClassV;
using internal::OpLabel;

// ---- The elementwise functions --------------------------------------------------------------
// Each is one Eigen expression over two array expressions of equal size, with the op type it
// implements; its base says which dtypes it accepts and whether it yields bool.

struct Arithmetic {
  static constexpr DtypeClass kAccepts = DtypeClass::kNumeric;
  static constexpr bool kCompare = false;
};
struct FloatArithmetic {
  static constexpr DtypeClass kAccepts = DtypeClass::kFloating;
  static constexpr bool kCompare = false;
};
struct Ordering {
  static constexpr DtypeClass kAccepts = DtypeClass::kNumeric;
  static constexpr bool kCompare = true;
};
struct Equality {
  static constexpr DtypeClass kAccepts = DtypeClass::kAny;
  static constexpr bool kCompare = true;
};

struct AddFn : Arithmetic {
  static constexpr const char* kType = "Add";
  template <typename X, typename Y>
  auto operator()(const X& x, const Y& y) const { return x + y; }
};
struct SubFn : Arithmetic {
  static constexpr const char* kType = "Sub";
  template <typename X, typename Y>
  auto operator()(const X& x, const Y& y) const { return x - y; }
};
struct MulFn : Arithmetic {
  static constexpr const char* kType = "Mul";
  template <typename X, typename Y>
  auto operator()(const X& x, const Y& y) const { return x * y; }
};
struct DivFn : FloatArithmetic {
  static constexpr const char* kType = "RealDiv";
  template <typename X, typename Y>
  auto operator()(const X& x, const Y& y) const { return x / y; }
};
struct LessFn : Ordering {
  static constexpr const char* kType = "Less";
  template <typename X, typename Y>
  auto operator()(const X& x, const Y& y) const { return x < y; }
};
struct LessEqualFn : Ordering {
  static constexpr const char* kType = "LessEqual";
  template <typename X, typename Y>
  auto operator()(const X& x, const Y& y) const { return x <= y; }
};
struct GreaterFn : Ordering {
  static constexpr const char* kType = "Greater";
  template <typename X, typename Y>
  auto operator()(const X& x, const Y& y) const { return x > y; }
};
struct GreaterEqualFn : Ordering {
  static constexpr const char* kType = "GreaterEqual";
  template <typename X, typename Y>
  auto operator()(const X& x, const Y& y) const { return x >= y; }
};
struct EqualFn : Equality {
  static constexpr const char* kType = "Equal";
  template <typename X, typename Y>
  auto operator()(const X& x, const Y& y) const { return x == y; }
};
struct NotEqualFn : Equality {
  static constexpr const char* kType = "NotEqual";
  template <typename X, typename Y>
  auto operator()(const X& x, const Y& y) const { return x != y; }
};

// ---- Broadcasting: shapes at build time -----------------------------------------------------

[[noreturn]] void ThrowDimensionsDiffer(int64_t a, int64_t b, const std::string& name,
                                        const char* type, const TensorShape& x,
                                        const TensorShape& y) {
  throw ValueError("Dimensions must be equal, but are " + std::to_string(a) + " and " +
                   std::to_string(b) + " for " + OpLabel(name, type) + " with input shapes: " +
                   x.ToString() + ", " + y.ToString() + ".");
}

// Dimension `d` of two shapes that must agree: the known one wins.
int64_t MergeDim(int64_t a, int64_t b, const std::string& name, const char* type,
                 const TensorShape& x, const TensorShape& y) {
  if (a != TensorShape::kUnknownDim && b != TensorShape::kUnknownDim && a != b) {
    ThrowDimensionsDiffer(a, b, name, type, x, y);
  }
  return a != TensorShape::kUnknownDim ? a : b;
}

// The static shape of a binary op's output, or ValueError for shapes mts does not broadcast.
TensorShape BroadcastShape(const TensorShape& x, const TensorShape& y, const std::string& name,
                           const char* type) {
  if (x.has_rank() && x.rank() == 0) return y;
  if (y.has_rank() && y.rank() == 0) return x;
  if (!x.has_rank() || !y.has_rank()) return TensorShape::Unknown();
  if (x.rank() == y.rank()) {
    std::vector<int64_t> dims(x.rank());
    for (int d = 0; d < x.rank(); ++d) {
      if (d == 0 && x.rank() == 2 && (x.dim(0) == 1 || y.dim(0) == 1)) {
        dims[0] = x.dim(0) == 1 ? y.dim(0) : x.dim(0);  // A [1,M] row meets every row.
      } else {
        dims[d] = MergeDim(x.dim(d), y.dim(d), name, type, x, y);
      }
    }
    return TensorShape(dims);
  }
  if (x.rank() == 2 && y.rank() == 1) {
    return TensorShape({x.dim(0), MergeDim(x.dim(1), y.dim(0), name, type, x, y)});
  }
  if (x.rank() == 1 && y.rank() == 2) {
    return TensorShape({y.dim(0), MergeDim(x.dim(0), y.dim(1), name, type, x, y)});
  }
  throw ValueError("Shapes " + x.ToString() + " and " + y.ToString() + " of " +
                   OpLabel(name, type) + " cannot be broadcast: mts broadcasts equal shapes, "
                   "a scalar with anything, and a matrix with a row");
}

template <typename F>
void BinaryShape(ShapeContext& ctx) {
  const Output& x = ctx.inputs[0];
  const Output& y = ctx.inputs[1];
  if (x.dtype() != y.dtype()) {
    throw TypeError(OpLabel(ctx.op_name, F::kType) + ": x has dtype " +
                    DataTypeName(x.dtype()) + " but y has dtype " + DataTypeName(y.dtype()) +
                    "; both operands must have the same dtype");
  }
  CheckDtype(ctx.op_name, F::kType, x.dtype(), F::kAccepts);
  ctx.AddOutput(F::kCompare ? DataType::kBool : x.dtype(),
                BroadcastShape(x.shape(), y.shape(), ctx.op_name, F::kType));
}

// ---- Broadcasting: values at run time -------------------------------------------------------

// How the two operands of one run line up.
enum class Pattern {
  kSame,     // Equal shapes: elementwise.
  kScalarX,  // x is a scalar: it meets every element of y.
  kScalarY,  // y is a scalar.
  kRowY,     // x is [N,M], y is [M] or [1,M]: y meets every row of x.
  kRowX,     // the mirror image.
};

bool IsRowOf(const TensorShape& row, const TensorShape& matrix) {
  if (matrix.rank() != 2) return false;
  if (row.rank() == 1) return row.dim(0) == matrix.dim(1);
  return row.rank() == 2 && row.dim(0) == 1 && row.dim(1) == matrix.dim(1);
}

// Run-time shapes are fully known, so this is where an unknown dimension is finally checked.
Pattern MatchShapes(const Tensor& x, const Tensor& y, const Operation& op) {
  if (x.shape() == y.shape()) return Pattern::kSame;
  if (x.shape().rank() == 0) return Pattern::kScalarX;
  if (y.shape().rank() == 0) return Pattern::kScalarY;
  if (IsRowOf(y.shape(), x.shape())) return Pattern::kRowY;
  if (IsRowOf(x.shape(), y.shape())) return Pattern::kRowX;
  throw InvalidArgumentError("Incompatible shapes: " + x.shape().ToString() + " vs. " +
                                 y.shape().ToString() + " in " +
                                 OpLabel(op.name(), op.type().c_str()),
                             op.name());
}

template <typename T>
using RowMajorArray = Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// [mts:binary-broadcast]
// Writes f(x, y) into `out`. Every case hands `f` two array expressions of the output's size:
// a scalar becomes a constant array, a row is replicated down the rows of the matrix. Both
// are lazy Eigen expressions, so nothing is copied and the loop is Eigen's, vectorised.
template <typename T, typename Out, typename F>
void ApplyBinary(const Tensor& x, const Tensor& y, Pattern pattern, Tensor& out, F f) {
  using Column = Eigen::Array<T, Eigen::Dynamic, 1>;
  using Matrix = Eigen::Map<const RowMajorArray<T>>;
  using Row = Eigen::Map<const Eigen::Array<T, 1, Eigen::Dynamic>>;
  const int64_t n = out.num_elements();
  switch (pattern) {
    case Pattern::kSame:
      out.flat<Out>() = f(x.flat<T>(), y.flat<T>());
      return;
    case Pattern::kScalarX:
      out.flat<Out>() = f(Column::Constant(n, x.scalar<T>()), y.flat<T>());
      return;
    case Pattern::kScalarY:
      out.flat<Out>() = f(x.flat<T>(), Column::Constant(n, y.scalar<T>()));
      return;
    case Pattern::kRowY:
    case Pattern::kRowX: {
      const bool row_is_y = pattern == Pattern::kRowY;
      const Tensor& m = row_is_y ? x : y;
      const Tensor& r = row_is_y ? y : x;
      const int64_t rows = m.shape().dim(0), cols = m.shape().dim(1);
      Matrix matrix(m.data<T>(), rows, cols);
      Row row(r.data<T>(), cols);
      Eigen::Map<RowMajorArray<Out>> result(out.data<Out>(), rows, cols);
      if (row_is_y) {
        result = f(matrix, row.colwise().replicate(rows));
      } else {
        result = f(row.colwise().replicate(rows), matrix);
      }
      return;
    }
  }
}
// [mts:binary-broadcast-end]

template <typename F>
void BinaryKernel(OpKernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& y = ctx.input(1);
  const Pattern pattern = MatchShapes(x, y, ctx.op());
  const bool x_shaped = pattern == Pattern::kSame || pattern == Pattern::kScalarY ||
                        pattern == Pattern::kRowY;
  // Elementwise, so the output may take over an operand that dies here (only one of the
  // output's element count qualifies, and a comparison's bool output takes neither).
  Tensor& out = ctx.forward_input_or_allocate_output({0, 1}, 0, x_shaped ? x.shape() : y.shape());
  DispatchDataType(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (InClassV<T, F::kAccepts>()) {
      using Out = std::conditional_t<F::kCompare, bool, T>;
      ApplyBinary<T, Out>(x, y, pattern, out, F());
    }
  });
}

template <typename F>
OpDef BinaryDef() {
  return {F::kType, BinaryShape<F>, BinaryKernel<F>};
}
const OpRegistration add_op(BinaryDef<AddFn>());
const OpRegistration sub_op(BinaryDef<SubFn>());
const OpRegistration mul_op(BinaryDef<MulFn>());
const OpRegistration div_op(BinaryDef<DivFn>());
const OpRegistration less_op(BinaryDef<LessFn>());
const OpRegistration less_equal_op(BinaryDef<LessEqualFn>());
const OpRegistration greater_op(BinaryDef<GreaterFn>());
const OpRegistration greater_equal_op(BinaryDef<GreaterEqualFn>());
const OpRegistration equal_op(BinaryDef<EqualFn>());
const OpRegistration not_equal_op(BinaryDef<NotEqualFn>());

// ---- Unary arithmetic -----------------------------------------------------------------------

struct NegFn {
  static constexpr const char* kType = "Neg";
  static constexpr DtypeClass kAccepts = DtypeClass::kNumeric;
  template <typename X>
  auto operator()(const X& x) const { return -x; }
};
struct SquareFn {
  static constexpr const char* kType = "Square";
  static constexpr DtypeClass kAccepts = DtypeClass::kNumeric;
  template <typename X>
  auto operator()(const X& x) const { return x.square(); }
};
struct SqrtFn {
  static constexpr const char* kType = "Sqrt";
  static constexpr DtypeClass kAccepts = DtypeClass::kFloating;
  template <typename X>
  auto operator()(const X& x) const { return x.sqrt(); }
};
struct ExpFn {
  static constexpr const char* kType = "Exp";
  static constexpr DtypeClass kAccepts = DtypeClass::kFloating;
  template <typename X>
  auto operator()(const X& x) const { return x.exp(); }
};
struct LogFn {
  static constexpr const char* kType = "Log";
  static constexpr DtypeClass kAccepts = DtypeClass::kFloating;
  template <typename X>
  auto operator()(const X& x) const { return x.log(); }
};

template <typename F>
void UnaryShape(ShapeContext& ctx) {
  CheckDtype(ctx.op_name, F::kType, ctx.inputs[0].dtype(), F::kAccepts);
  ctx.AddOutput(ctx.inputs[0].dtype(), ctx.inputs[0].shape());
}

template <typename F>
void UnaryKernel(OpKernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.forward_input_or_allocate_output({0}, 0, x.shape());
  DispatchDataType(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (InClassV<T, F::kAccepts>()) out.flat<T>() = F()(x.flat<T>());
  });
}

template <typename F>
OpDef UnaryDef() {
  return {F::kType, UnaryShape<F>, UnaryKernel<F>};
}
const OpRegistration neg_op(UnaryDef<NegFn>());
const OpRegistration square_op(UnaryDef<SquareFn>());
const OpRegistration sqrt_op(UnaryDef<SqrtFn>());
const OpRegistration exp_op(UnaryDef<ExpFn>());
const OpRegistration log_op(UnaryDef<LogFn>());

// ---- CheckNumerics --------------------------------------------------------------------------

void CheckNumericsShape(ShapeContext& ctx) {
  CheckDtype(ctx.op_name, "CheckNumerics", ctx.inputs[0].dtype(), DtypeClass::kFloating);
  ctx.AddOutput(ctx.inputs[0].dtype(), ctx.inputs[0].shape());
}
void CheckNumericsKernel(OpKernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  DispatchDataType(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      const char* found = x.flat<T>().isNaN().any()   ? "NaN"
                          : x.flat<T>().isInf().any() ? "Inf"
                                                      : nullptr;
      if (found != nullptr) {
        throw InvalidArgumentError(
            ctx.op().attr<std::string>("message") + " : Tensor had " + found + " values",
            ctx.op().name());
      }
    }
  });
  ctx.set_output(0, x);  // Passes the buffer on, as Identity does.
}
const OpRegistration check_numerics_op({"CheckNumerics", CheckNumericsShape,
                                        CheckNumericsKernel});

Output Binary(const char* type, const Output& x, const Output& y, const std::string& name) {
  return GraphOf({x, y}, name).AddOperation(type, name, {x, y})->output(0);
}
Output Unary(const char* type, const Output& x, const std::string& name) {
  return GraphOf({x}, name).AddOperation(type, name, {x})->output(0);
}

}  // namespace

Output Add(const Output& x, const Output& y, const std::string& name) {
  return Binary("Add", x, y, name);
}
Output Sub(const Output& x, const Output& y, const std::string& name) {
  return Binary("Sub", x, y, name);
}
Output Mul(const Output& x, const Output& y, const std::string& name) {
  return Binary("Mul", x, y, name);
}
Output Div(const Output& x, const Output& y, const std::string& name) {
  return Binary("RealDiv", x, y, name);
}
Output Less(const Output& x, const Output& y, const std::string& name) {
  return Binary("Less", x, y, name);
}
Output LessEqual(const Output& x, const Output& y, const std::string& name) {
  return Binary("LessEqual", x, y, name);
}
Output Greater(const Output& x, const Output& y, const std::string& name) {
  return Binary("Greater", x, y, name);
}
Output GreaterEqual(const Output& x, const Output& y, const std::string& name) {
  return Binary("GreaterEqual", x, y, name);
}
Output Equal(const Output& x, const Output& y, const std::string& name) {
  return Binary("Equal", x, y, name);
}
Output NotEqual(const Output& x, const Output& y, const std::string& name) {
  return Binary("NotEqual", x, y, name);
}

Output Neg(const Output& x, const std::string& name) { return Unary("Neg", x, name); }
Output Square(const Output& x, const std::string& name) { return Unary("Square", x, name); }
Output Sqrt(const Output& x, const std::string& name) { return Unary("Sqrt", x, name); }
Output Exp(const Output& x, const std::string& name) { return Unary("Exp", x, name); }
Output Log(const Output& x, const std::string& name) { return Unary("Log", x, name); }

Output CheckNumerics(const Output& x, const std::string& message, const std::string& name) {
  return GraphOf({x}, name)
      .AddOperation("CheckNumerics", name, {x}, {{"message", message}})
      ->output(0);
}

}  // namespace mts
