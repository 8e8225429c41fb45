// nn_ops.h: the activation functions of a neural network: Relu, Sigmoid, Tanh, Softmax.
//
//   Session  <-- runs graphs built from these ops and the array, math, random and state ops
//
// Each op function adds one Operation to the graph of its input and returns its output, of
// the input's dtype and shape. Each takes float32 and float64 only: a TypeError naming
// the op is raised at build time otherwise, as TensorFlow finds no kernel for an int Relu.
//
// Example:
//   Output hidden = Relu(Add(MatMul(x, w1), b1));
//   Output probabilities = Softmax(Add(MatMul(hidden, w2), b2));   // rows sum to 1
//
// TensorFlow: tf.nn.relu, tf.sigmoid, tf.tanh, tf.nn.softmax
// (tensorflow/python/ops/nn_ops.py, math_ops.py).
#ifndef MTS_SRC_01_SESSION_NN_OPS_H_
#define MTS_SRC_01_SESSION_NN_OPS_H_

#include <string>

#include "src/01_session/graph.h"

namespace mts {

/// max(x, 0), elementwise (tf.nn.relu). \throws TypeError unless float.
Output Relu(const Output& x, const std::string& name = "Relu");

/// 1 / (1 + e^-x), elementwise (tf.sigmoid). \throws TypeError unless float.
Output Sigmoid(const Output& x, const std::string& name = "Sigmoid");

/// The hyperbolic tangent, elementwise (tf.tanh). \throws TypeError unless float.
Output Tanh(const Output& x, const std::string& name = "Tanh");

/// e^x / sum(e^x) along the last axis (tf.nn.softmax): each row of the result is a
/// probability distribution. Computed as e^(x - max) / sum(e^(x - max)), which is equal and
/// never overflows, however large the logits.
/// \throws TypeError unless float; ValueError if `logits` is known to be a scalar.
Output Softmax(const Output& logits, const std::string& name = "Softmax");

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_NN_OPS_H_
