// mlp.h: one training step of a multi-layer perceptron, twice: as an mts graph and written
// directly with Eigen, so a benchmark can set the two side by side.
//
//   RecoverableSession ... Session   <-- MlpGraph's train op runs through the stack
//   Eigen                            <-- EigenMlp does the same arithmetic by hand
//
// The model: dense layers with tanh (or ReLU) between them, a mean sparse softmax
// cross-entropy loss and Adam (TensorFlow's defaults, learning rate 0.02), as in
// examples/train_spirals_session.cc. EigenMlp is what a careful programmer writes without a
// framework: row-major matrices allocated once, forward, backward and update as Eigen
// expressions, the global step incremented. It is the floor the framework is held to.
#ifndef MTS_TESTS_BENCHMARKS_MLP_H_
#define MTS_TESTS_BENCHMARKS_MLP_H_

#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "src/01_session/graph.h"
#include "src/01_session/session_interface.h"
#include "src/01_session/tensor.h"

namespace mts {
namespace bench {

/// An MLP's layer sizes, input first (e.g. {2, 32, 32, 3} for the spirals).
struct MlpShape {
  std::vector<int64_t> sizes;
  bool relu = false;  ///< ReLU between layers instead of tanh.
};

/// A batch of inputs and labels, seeded.
struct MlpBatch {
  Tensor x;       ///< [batch, sizes.front()] float32, standard normal.
  Tensor labels;  ///< [batch] int64 in [0, sizes.back()).
};
MlpBatch MakeMlpBatch(const MlpShape& shape, int64_t batch, uint64_t seed);

/// The model as a graph, built in the default graph.
struct MlpGraph {
  /// Fed through placeholders.
  explicit MlpGraph(const MlpShape& shape);
  /// Reading `x` and `labels` (a queue's dequeue, say).
  MlpGraph(const MlpShape& shape, Output x, Output labels);
  Output x;                       ///< The inputs [?, in]: a placeholder unless given.
  Output labels;                  ///< The labels [?] int64: a placeholder unless given.
  Output loss;                    ///< Mean cross-entropy.
  Operation* train_op = nullptr;  ///< One Adam step; increments the global step.
};

/// The same model by hand with Eigen.
class EigenMlp {
 public:
  EigenMlp(const MlpShape& shape, int64_t batch, uint64_t seed);
  /// One forward, backward and Adam step on `batch`; returns the loss before the step.
  float Step(const MlpBatch& batch);

 private:
  using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;
  struct Layer {
    Matrix w, w_m, w_v, w_grad;
    RowVector b, b_m, b_v, b_grad;
  };
  template <typename P, typename G>
  void Adam(P& param, P& m, P& v, const G& grad, float lr_t);

  MlpShape shape_;
  std::vector<Layer> layers_;
  std::vector<Matrix> activations_;  // activations_[0] is the input.
  std::vector<Matrix> deltas_;
  float beta1_power_ = 1, beta2_power_ = 1;
  int64_t global_step_ = 0;
};

}  // namespace bench
}  // namespace mts

#endif  // MTS_TESTS_BENCHMARKS_MLP_H_
