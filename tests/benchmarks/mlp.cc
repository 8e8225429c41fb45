#include "tests/benchmarks/mlp.h"

#include <cmath>
#include <random>
#include <string>

#include "src/01_session/learning/adam_optimizer.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/learning/loss_ops.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/learning/nn_ops.h"
#include "src/01_session/learning/random_ops.h"
#include "src/01_session/tensor_types.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"

namespace mts {
namespace bench {

namespace {
constexpr float kLearningRate = 0.02f, kBeta1 = 0.9f, kBeta2 = 0.999f, kEpsilon = 1e-8f;
}  // namespace

MlpBatch MakeMlpBatch(const MlpShape& shape, int64_t batch, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal;
  std::uniform_int_distribution<int64_t> label(0, shape.sizes.back() - 1);
  MlpBatch b{Tensor(DataType::kFloat, {batch, shape.sizes.front()}),
             Tensor(DataType::kInt64, {batch})};
  for (auto& v : b.x.flat<float>()) v = normal(rng);
  for (auto& v : b.labels.flat<int64_t>()) v = label(rng);
  return b;
}

MlpGraph::MlpGraph(const MlpShape& shape)
    : MlpGraph(shape,
               Placeholder(DataType::kFloat, {TensorShape::kUnknownDim, shape.sizes.front()}, "x"),
               Placeholder(DataType::kInt64, {TensorShape::kUnknownDim}, "labels")) {}

MlpGraph::MlpGraph(const MlpShape& shape, Output x_in, Output labels_in)
    : x(x_in), labels(labels_in) {
  Output h = x;
  for (size_t l = 0; l + 1 < shape.sizes.size(); ++l) {
    const int64_t fan_in = shape.sizes[l], fan_out = shape.sizes[l + 1];
    NameScope scope("dense" + std::to_string(l));
    Variable w(RandomNormal({fan_in, fan_out}, 0.0, 1.0 / std::sqrt(double(fan_in))), "w");
    Variable b(Tensor::Zeros(DataType::kFloat, {fan_out}), "b");
    h = Add(MatMul(h, w), b);
    if (l + 2 < shape.sizes.size()) h = shape.relu ? Relu(h) : Tanh(h);
  }
  loss = ReduceMean(SparseSoftmaxCrossEntropyWithLogits(labels, h), std::nullopt, false, "loss");
  AdamOptimizer adam(kLearningRate);
  train_op = adam.Minimize(loss, GetOrCreateGlobalStep());
}

EigenMlp::EigenMlp(const MlpShape& shape, int64_t batch, uint64_t seed) : shape_(shape) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal;
  activations_.push_back(Matrix(batch, shape.sizes.front()));
  for (size_t l = 0; l + 1 < shape.sizes.size(); ++l) {
    const int64_t fan_in = shape.sizes[l], fan_out = shape.sizes[l + 1];
    Layer layer;
    layer.w = Matrix(fan_in, fan_out);
    for (int64_t i = 0; i < layer.w.size(); ++i) {
      layer.w.data()[i] = normal(rng) / std::sqrt(float(fan_in));
    }
    layer.w_m = layer.w_v = layer.w_grad = Matrix::Zero(fan_in, fan_out);
    layer.b = layer.b_m = layer.b_v = layer.b_grad = RowVector::Zero(fan_out);
    layers_.push_back(std::move(layer));
    activations_.push_back(Matrix(batch, fan_out));
    deltas_.push_back(Matrix(batch, fan_out));
  }
}

template <typename P, typename G>
void EigenMlp::Adam(P& param, P& m, P& v, const G& grad, float lr_t) {
  m.array() = kBeta1 * m.array() + (1 - kBeta1) * grad.array();
  v.array() = kBeta2 * v.array() + (1 - kBeta2) * grad.array().square();
  param.array() -= lr_t * m.array() / (v.array().sqrt() + kEpsilon);
}

// [mts:bench-eigen-step]
float EigenMlp::Step(const MlpBatch& batch) {
  const int64_t n = batch.x.shape().dim(0);
  const size_t num_layers = layers_.size();
  activations_[0] = batch.x.matrix<float>();
  // Forward: h_{l+1} = act(h_l w_l + b_l); the last layer's output is the logits.
  for (size_t l = 0; l < num_layers; ++l) {
    Matrix& out = activations_[l + 1];
    out.noalias() = activations_[l] * layers_[l].w;
    out.rowwise() += layers_[l].b;
    if (l + 1 < num_layers) {
      out = shape_.relu ? Matrix(out.cwiseMax(0.0f)) : Matrix(out.array().tanh().matrix());
    }
  }
  // Loss and its gradient: (softmax - one_hot) / n, from a row-max-shifted softmax.
  Matrix& delta = deltas_.back();
  const Matrix& logits = activations_.back();
  const auto labels = batch.labels.flat<int64_t>();
  float loss = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float max = logits.row(i).maxCoeff();
    delta.row(i) = (logits.row(i).array() - max).exp().matrix();
    const float sum = delta.row(i).sum();
    loss += std::log(sum) - (logits(i, labels[i]) - max);
    delta.row(i) /= sum;
    delta(i, labels[i]) -= 1;
  }
  delta /= float(n);
  // Backward, layer by layer, into each layer's gradient.
  for (size_t l = num_layers; l-- > 0;) {
    layers_[l].w_grad.noalias() = activations_[l].transpose() * deltas_[l];
    layers_[l].b_grad = deltas_[l].colwise().sum();
    if (l > 0) {
      Matrix& below = deltas_[l - 1];
      below.noalias() = deltas_[l] * layers_[l].w.transpose();
      const auto a = activations_[l].array();
      if (shape_.relu) {
        below.array() *= (a > 0.0f).cast<float>();
      } else {
        below.array() *= 1 - a.square();
      }
    }
  }
  // Adam, with the bias-corrected rate, then the global step.
  beta1_power_ *= kBeta1;
  beta2_power_ *= kBeta2;
  const float lr_t = kLearningRate * std::sqrt(1 - beta2_power_) / (1 - beta1_power_);
  for (Layer& layer : layers_) {
    Adam(layer.w, layer.w_m, layer.w_v, layer.w_grad, lr_t);
    Adam(layer.b, layer.b_m, layer.b_v, layer.b_grad, lr_t);
  }
  ++global_step_;
  return loss / n;
}
// [mts:bench-eigen-step-end]

}  // namespace bench
}  // namespace mts
