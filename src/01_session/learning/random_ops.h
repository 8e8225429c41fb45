// random_ops.h: tensors of random numbers, reproducible from a seed: RandomNormal and
// RandomUniform.
//
//   Session  <-- each session keeps one generator per random op, made when first run
//
// A random op is stateful: every run draws new numbers from the op's generator, and the
// generator belongs to the session (a per-session resource, like a variable's value). So a
// training loop sees fresh samples each step, and a new session on the same graph replays
// the same sequence from the start, which is what makes a seeded run reproducible.
//
// Seeds follow TensorFlow's rule, with two levels: the graph seed (`Graph::set_seed`, 0 =
// unset) and the op seed (the `seed` argument, 0 = unset).
//   - neither set: the generator is seeded from std::random_device; runs are not repeatable;
//   - graph seed only: the op seed is derived from the op's id in the graph, so two random
//     ops in one graph differ, and rebuilding the same graph repeats both;
//   - op seed only: the graph seed defaults to a fixed constant (TensorFlow's 87654321);
//   - both: used as given.
// The generator is std::mt19937_64 seeded through std::seed_seq, both specified exactly by
// the C++ standard; uniform and normal values are made from its raw bits here (the standard
// distributions vary between library implementations), so a seed gives the same numbers on
// every platform, up to the last bit of the C library's log, cos and sin.
//
// Thread safety: concurrent runs of one op in one session take turns on its generator.
//
// Example:
//   Graph g;
//   DefaultGraphScope as_default(g);
//   g.set_seed(42);
//   Output noise = RandomNormal({2, 3}, /*mean=*/0.0, /*stddev=*/0.1);
//
// TensorFlow: tf.random_normal, tf.random_uniform, tf.set_random_seed
// (tensorflow/python/ops/random_ops.py, framework/random_seed.py). TensorFlow's graph
// holds RandomStandardNormal or RandomUniform followed by a Mul and an Add; mts folds the
// scale and shift into one op.
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
