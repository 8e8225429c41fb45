// example_data.h: small, seeded data sets for the examples and tests that train a model.
//
//   examples/, tests   feed these through placeholders to graphs that learn
//
// A linear-regression set whose true weights are known, and interleaved spirals, which no
// linear model separates. Plain functions returning Tensors; the same arguments give the
// same bytes on every machine and standard library (raw std::mt19937_64 words, turned into
// numbers by this code, rounded to float32).
//
// Example:
//   SpiralsData data = MakeSpirals(/*num_examples_per_class=*/100, /*num_classes=*/3,
//                                  /*seed=*/42);
//
// TensorFlow: none; TF1 tutorials used numpy (the spirals are CS231n's).
#ifndef MTS_SRC_01_SESSION_EXAMPLE_DATA_H_
#define MTS_SRC_01_SESSION_EXAMPLE_DATA_H_

#include <cstdint>

#include "src/01_session/tensor.h"

namespace mts {

/// A regression set y = x * weights + bias + noise, with the truth it was made from.
struct LinearRegressionData {
  Tensor x;        ///< [num_examples, num_features] float32, standard normal features.
  Tensor y;        ///< [num_examples, 1] float32 targets.
  Tensor weights;  ///< [num_features, 1] float32, the true weights (standard normal).
  Tensor bias;     ///< [1] float32, the true bias (standard normal).
};

/// Makes a linear-regression set from `seed`. Each target is the dot product of its features
/// with the true weights, plus the bias, plus normal noise of standard deviation
/// `noise_stddev`. The features do not depend on `noise_stddev`: the same seed with another
/// noise level gives the same x, weights and bias.
/// \throws ValueError if a count is not positive or `noise_stddev` is negative.
LinearRegressionData MakeLinearRegressionData(int64_t num_examples, int64_t num_features,
                                              uint64_t seed, float noise_stddev = 0.1f);

/// A labelled 2-D classification set.
struct SpiralsData {
  Tensor x;        ///< [n, 2] float32 points, n = num_examples_per_class * num_classes.
  Tensor labels;   ///< [n] int64 class ids in [0, num_classes).
  Tensor one_hot;  ///< [n, num_classes] float32, the labels one-hot.
};

/// Makes `num_classes` spiral arms of `num_examples_per_class` points each, interleaved
/// around the origin. Point j of arm k lies at radius r = (j + 1) / num_examples_per_class
/// and angle 2*pi*k / num_classes + 4r + noise * N(0, 1), as (r sin(angle), r cos(angle)).
/// Rows alternate between classes (row i has class i % num_classes), so every block of
/// num_classes consecutive rows holds one point of each class and any prefix is balanced.
/// \throws ValueError if a count is not positive or `noise` is negative.
SpiralsData MakeSpirals(int64_t num_examples_per_class, int num_classes, uint64_t seed,
                        float noise = 0.2f);

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_EXAMPLE_DATA_H_
