// training_ops.h: the ops that update a variable from its gradient, in place.
//
//   Session  <-- runs the train op an optimizer builds from these
//
// Each op takes the variable (and, for Momentum and Adam, its slot variables) by reference,
// changes it in place under the variable's lock, and outputs the new value. An optimizer
// (optimizer.h) makes one such op per trainable variable and groups them into the train op.
// The arithmetic is one Eigen expression per update, with no temporary tensors.
//
// TensorFlow: ApplyGradientDescent, ApplyMomentum, ApplyAdam
// (tensorflow/core/kernels/training_ops.cc), called by the Python optimizers.
#ifndef MTS_SRC_01_SESSION_TRAINING_OPS_H_
#define MTS_SRC_01_SESSION_TRAINING_OPS_H_

#include <string>

#include "src/01_session/variables.h"

namespace mts {

/// var -= alpha * delta. `alpha` is a scalar of the variable's dtype; `delta` its shape.
/// \throws TypeError or ValueError at build time on mismatched dtypes or shapes.
Output ApplyGradientDescent(const Variable& var, const Output& alpha, const Output& delta,
                            const std::string& name = "ApplyGradientDescent");

/// accum = accum * momentum + grad; var -= lr * accum (with Nesterov:
/// var -= lr * grad + lr * momentum * accum).
Output ApplyMomentum(const Variable& var, const Variable& accum, const Output& lr,
                     const Output& grad, const Output& momentum, bool use_nesterov = false,
                     const std::string& name = "ApplyMomentum");

/// Adam's update with bias correction from the running powers of beta1 and beta2:
/// lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power); m += (grad - m) * (1 - beta1);
/// v += (grad^2 - v) * (1 - beta2); var -= lr_t * m / (sqrt(v) + epsilon).
Output ApplyAdam(const Variable& var, const Variable& m, const Variable& v,
                 const Output& beta1_power, const Output& beta2_power, const Output& lr,
                 const Output& beta1, const Output& beta2, const Output& epsilon,
                 const Output& grad, const std::string& name = "ApplyAdam");

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_TRAINING_OPS_H_
