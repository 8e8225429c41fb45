// random_ops.h: tensors of random numbers, reproducible from a seed: RandomNormal and
// RandomUniform.
//
// Stage 01 (learning): each session keeps one generator per random op, so every run draws
// new numbers and a new session replays them. Seeds follow TensorFlow's two levels, the
// graph seed (`Graph::set_seed`) and the op seed (0 = unset): neither set,
// std::random_device; graph seed only, an op seed derived from the op's id; op seed only,
// the graph seed 87654321; both, as given. A seed gives the same numbers on every platform.
// Thread safety: concurrent runs of one op take turns on its generator.
//
// Example: g.set_seed(42); Output noise = RandomNormal({2, 3}, /*mean=*/0.0, /*stddev=*/0.1);
//
// TensorFlow: tf.random_normal, tf.random_uniform, tf.set_random_seed (random_ops.py).
#ifndef MTS_SRC_01_SESSION_RANDOM_OPS_H_
#define MTS_SRC_01_SESSION_RANDOM_OPS_H_

#include <cstdint>
#include <string>

#include "src/01_session/graph.h"

namespace mts {

/// The graph seed an op seed is paired with when the graph has none (TensorFlow's value).
constexpr int64_t kDefaultGraphSeed = 87654321;

/// Samples of a normal distribution with `mean` and `stddev`, of a fully defined `shape`
/// (tf.random_normal), in the default graph. `seed` is the op seed (0 = unset).
/// \throws ValueError if `shape` is not fully defined or `stddev` is negative; TypeError
///   unless `dtype` is float32 or float64.
Output RandomNormal(const TensorShape& shape, double mean = 0.0, double stddev = 1.0,
                    DataType dtype = DataType::kFloat, int64_t seed = 0,
                    const std::string& name = "random_normal");

/// Samples of a uniform distribution on [minval, maxval), of a fully defined `shape`
/// (tf.random_uniform), in the default graph. `seed` is the op seed (0 = unset). In float32,
/// rounding can make a sample equal to maxval.
/// \throws ValueError if `shape` is not fully defined or maxval < minval; TypeError unless
///   `dtype` is float32 or float64.
Output RandomUniform(const TensorShape& shape, double minval = 0.0, double maxval = 1.0,
                     DataType dtype = DataType::kFloat, int64_t seed = 0,
                     const std::string& name = "random_uniform");

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_RANDOM_OPS_H_
