// loss_ops.h: softmax cross-entropy losses for classification, fused with their gradient.
//
//   Session  <-- runs the loss an optimizer minimises
//
// Computing softmax and then log separately loses precision for large logits and costs two
// passes; these ops do both in one numerically stable pass (subtracting each row's maximum)
// and produce, as a second output, the gradient with respect to the logits, which their
// registered gradient function reuses instead of differentiating through softmax.
//
// TensorFlow: tf.nn.softmax_cross_entropy_with_logits and
// tf.nn.sparse_softmax_cross_entropy_with_logits (tensorflow/python/ops/nn_ops.py).
#ifndef MTS_SRC_01_SESSION_LOSS_OPS_H_
#define MTS_SRC_01_SESSION_LOSS_OPS_H_

#include <string>

#include "src/01_session/graph.h"

namespace mts {

/// The per-example loss -sum(labels * log(softmax(logits))) for logits [N, C] and labels
/// [N, C] (each row a probability distribution), as a float [N] tensor.
/// \throws TypeError unless both are float of one dtype; ValueError unless both are rank 2
///   with matching known dimensions.
Output SoftmaxCrossEntropyWithLogits(const Output& labels, const Output& logits,
                                     const std::string& name = "softmax_cross_entropy");

/// The per-example loss -log(softmax(logits)[label]) for logits [N, C] and integer class
/// labels [N] (int32 or int64). A label outside [0, C) raises InvalidArgumentError when run.
Output SparseSoftmaxCrossEntropyWithLogits(
    const Output& labels, const Output& logits,
    const std::string& name = "sparse_softmax_cross_entropy");

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_LOSS_OPS_H_
