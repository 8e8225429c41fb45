// math_ops.h: arithmetic, comparisons, matrix products and reductions over tensors.
//
//   Session  <-- runs graphs built from these ops and the array, nn, random and state ops
//
// Every op function adds one Operation to the graph of its inputs and returns its output.
// Dtypes and static shapes are checked here, while the graph is built: a mistake raises at
// the line that made it (ValueError for shapes, TypeError for dtypes), naming the op.
//
// Broadcasting. The binary ops (Add ... NotEqual) accept two operands of one dtype whose
// shapes are
//   - the same,
//   - a scalar and anything (either side), or
//   - a matrix [N,M] and a row, [M] or [1,M] (either side): the row meets every row.
// That covers what a dense layer and a loss need (`x*w + b`, `loss / n`). TensorFlow
// broadcasts any pair of numpy-compatible shapes; mts raises ValueError for the rest.
// Dimensions unknown at build time are checked again when the op runs
// (InvalidArgumentError "Incompatible shapes").
//
// Dtypes. Add, Sub, Mul, Neg, Square, MatMul, the reductions, the ordering comparisons and
// ArgMax take any numeric dtype (float32, float64, int32, int64). Div, Sqrt, Exp, Log and
// CheckNumerics take float32 and float64 only, as TensorFlow's RealDiv and friends do.
// Equal and NotEqual take every dtype, bool and string included.
//
// Example:
//   Output x = Placeholder(DataType::kFloat, {TensorShape::kUnknownDim, 3});
//   Output logits = Add(MatMul(x, w), b);            // [?,3] x [3,2] + [2] -> [?,2]
//   Output loss = ReduceMean(Square(Sub(logits, y)));
//
// TensorFlow: tf.add, tf.subtract, tf.multiply, tf.divide (RealDiv), tf.negative, tf.square,
// tf.sqrt, tf.exp, tf.log, tf.matmul, tf.reduce_sum, tf.reduce_mean, tf.reduce_max, tf.less,
// tf.less_equal, tf.greater, tf.greater_equal, tf.equal, tf.not_equal, tf.argmax,
// tf.check_numerics (tensorflow/python/ops/math_ops.py, array_ops.py).
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
