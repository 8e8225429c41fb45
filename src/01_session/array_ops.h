// array_ops.h: ops that make, pass on and reshape tensors: constants, placeholders, identity,
// reshape, cast, and the grouping ops no_op and group.
//
//   Session  <-- runs graphs built from these ops and the math, nn, random and state ops
//
// Every op function adds one Operation to the graph of its inputs (the default graph for ops
// without inputs) and returns its output. Dtypes and static shapes are checked here, while
// the graph is built: a mistake raises at the line that made it, naming the op.
//
// TensorFlow: tf.constant, tf.placeholder, tf.identity, tf.reshape, tf.cast, tf.no_op,
// tf.group (tensorflow/python/ops/array_ops.py, control_flow_ops.py).
#ifndef MTS_SRC_01_SESSION_ARRAY_OPS_H_
#define MTS_SRC_01_SESSION_ARRAY_OPS_H_

#include <string>
#include <vector>

#include "src/01_session/graph.h"
#include "src/01_session/tensor.h"

namespace mts {

/// A constant holding `value` (TensorFlow's tf.constant).
Output Constant(const Tensor& value, const std::string& name = "Const");
/// A float32 scalar constant.
Output Constant(float value, const std::string& name = "Const");
/// A float64 scalar constant.
Output Constant(double value, const std::string& name = "Const");
/// An int32 scalar constant.
Output Constant(int32_t value, const std::string& name = "Const");
/// An int64 scalar constant.
Output Constant(int64_t value, const std::string& name = "Const");
/// A bool scalar constant.
Output Constant(bool value, const std::string& name = "Const");

/// A tensor that must be fed (TensorFlow's tf.placeholder). `shape` may have unknown
/// dimensions; a feed is checked against it. Running it unfed raises InvalidArgumentError.
Output Placeholder(DataType dtype, const TensorShape& shape = TensorShape::Unknown(),
                   const std::string& name = "Placeholder");

/// Passes `input` through unchanged, without copying its buffer.
Output Identity(const Output& input, const std::string& name = "Identity");

/// The elements of `input` in a new shape; one dimension may be -1 (inferred). No copy.
/// \throws ValueError at build time if the element counts cannot match.
Output Reshape(const Output& input, const std::vector<int64_t>& shape,
               const std::string& name = "Reshape");

/// Converts elements to `dtype` (bool converts as 0/1; string is not convertible).
Output Cast(const Output& input, DataType dtype, const std::string& name = "Cast");

/// An op that does nothing; a target that names a point in the graph.
Operation* NoOp(const std::string& name = "NoOp");

/// An op that runs all of `ops` (as control inputs) and produces nothing (tf.group).
Operation* Group(const std::vector<Operation*>& ops, const std::string& name = "group_deps");

/// Zeros of a fully defined shape (tf.zeros).
Output Zeros(const TensorShape& shape, DataType dtype = DataType::kFloat,
             const std::string& name = "zeros");
/// A tensor of `shape` filled with the scalar `value` (tf.fill with a constant).
Output Fill(const TensorShape& shape, const Tensor& value, const std::string& name = "Fill");

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_ARRAY_OPS_H_
