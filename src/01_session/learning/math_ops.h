// math_ops.h: arithmetic, comparisons, matrix products and reductions over tensors.
//
// Stage 01 (learning). Each op function adds one Operation to its inputs' graph and checks
// dtypes and static shapes there (ValueError, TypeError, naming the op). Binary ops
// broadcast two shapes that are the same, a scalar and anything, or a matrix [N,M] and a
// row [M] or [1,M]; dimensions unknown at build time are checked when the op runs. Div,
// Sqrt, Exp, Log and CheckNumerics take float32 and float64; Equal and NotEqual every
// dtype; the rest any numeric dtype.
//
// Example: Output loss = ReduceMean(Square(Sub(Add(MatMul(x, w), b), y)));
//
// TensorFlow: tf.add ... tf.check_numerics (math_ops.py): each function names its own.
#ifndef MTS_SRC_01_SESSION_MATH_OPS_H_
#define MTS_SRC_01_SESSION_MATH_OPS_H_

#include <optional>
#include <string>

#include "src/01_session/graph.h"

namespace mts {

// ---- Elementwise binary arithmetic (broadcasting as above) --------------------------------

/// x + y, elementwise (tf.add). \throws TypeError on mixed or non-numeric dtypes;
/// ValueError if the shapes cannot broadcast.
Output Add(const Output& x, const Output& y, const std::string& name = "Add");
/// x - y, elementwise (tf.subtract). Errors as Add.
Output Sub(const Output& x, const Output& y, const std::string& name = "Sub");
/// x * y, elementwise (tf.multiply). Errors as Add.
Output Mul(const Output& x, const Output& y, const std::string& name = "Mul");
/// x / y, elementwise, an op of type "RealDiv" named like tf.divide's ("truediv").
/// \throws TypeError unless both are float32 or both float64; ValueError as Add.
Output Div(const Output& x, const Output& y, const std::string& name = "truediv");

// ---- Elementwise unary arithmetic -----------------------------------------------------------

/// -x (tf.negative). \throws TypeError for bool and string.
Output Neg(const Output& x, const std::string& name = "Neg");
/// x * x (tf.square). \throws TypeError for bool and string.
Output Square(const Output& x, const std::string& name = "Square");
/// The square root (tf.sqrt); NaN for negative elements. \throws TypeError unless float.
Output Sqrt(const Output& x, const std::string& name = "Sqrt");
/// e to the x (tf.exp). \throws TypeError unless float.
Output Exp(const Output& x, const std::string& name = "Exp");
/// The natural logarithm (tf.log); -inf at 0, NaN below. \throws TypeError unless float.
Output Log(const Output& x, const std::string& name = "Log");

// ---- Matrix product -------------------------------------------------------------------------

/// The matrix product op(a) * op(b), where op transposes when asked (tf.matmul). Both must be
/// rank 2 and of one numeric dtype. \throws ValueError if a rank is not 2, or if the inner
/// dimensions are known and differ; TypeError on mixed or non-numeric dtypes. Inner
/// dimensions unknown at build time raise InvalidArgumentError at run time if they differ.
Output MatMul(const Output& a, const Output& b, bool transpose_a = false,
              bool transpose_b = false, const std::string& name = "MatMul");

// ---- Reductions -----------------------------------------------------------------------------

/// The sum of all elements (no `axis`), or along `axis` (negative counts from the end)
/// (tf.reduce_sum). `keep_dims` keeps reduced dimensions with size 1. The sum of nothing is 0.
/// \throws ValueError if `axis` is out of range for a known rank; TypeError unless numeric.
Output ReduceSum(const Output& x, std::optional<int> axis = std::nullopt,
                 bool keep_dims = false, const std::string& name = "Sum");
/// The mean, as ReduceSum (tf.reduce_mean). Integer means round toward zero, as the
/// division does; the mean of nothing is NaN for floats and 0 for integers.
Output ReduceMean(const Output& x, std::optional<int> axis = std::nullopt,
                  bool keep_dims = false, const std::string& name = "Mean");
/// The maximum, as ReduceSum (tf.reduce_max). The maximum of nothing is the dtype's lowest
/// value (-inf for floats).
Output ReduceMax(const Output& x, std::optional<int> axis = std::nullopt,
                 bool keep_dims = false, const std::string& name = "Max");

/// The int64 index of the largest element along `axis` (tf.argmax); ties go to the first.
/// The axis is removed from the shape. \throws ValueError if `axis` is out of range for a
/// known rank; TypeError unless numeric. Running it on an empty axis raises
/// InvalidArgumentError.
Output ArgMax(const Output& x, int axis, const std::string& name = "ArgMax");

// ---- Comparisons (broadcasting as above; bool output) ---------------------------------------

/// x < y, elementwise (tf.less). \throws TypeError on mixed or non-numeric dtypes;
/// ValueError if the shapes cannot broadcast.
Output Less(const Output& x, const Output& y, const std::string& name = "Less");
/// x <= y (tf.less_equal). Errors as Less.
Output LessEqual(const Output& x, const Output& y, const std::string& name = "LessEqual");
/// x > y (tf.greater). Errors as Less.
Output Greater(const Output& x, const Output& y, const std::string& name = "Greater");
/// x >= y (tf.greater_equal). Errors as Less.
Output GreaterEqual(const Output& x, const Output& y,
                    const std::string& name = "GreaterEqual");
/// x == y (tf.equal); any dtype, bool and string included. \throws TypeError on mixed dtypes.
Output Equal(const Output& x, const Output& y, const std::string& name = "Equal");
/// x != y (tf.not_equal); any dtype. \throws TypeError on mixed dtypes.
Output NotEqual(const Output& x, const Output& y, const std::string& name = "NotEqual");

// ---- Checks ---------------------------------------------------------------------------------

/// Passes `x` through unless it holds a NaN or an infinity; then running it raises
/// InvalidArgumentError naming the op, with `message` and "Tensor had NaN values" (or
/// "Inf values") (tf.check_numerics). \throws TypeError at build time unless float.
Output CheckNumerics(const Output& x, const std::string& message,
                     const std::string& name = "CheckNumerics");

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_MATH_OPS_H_
