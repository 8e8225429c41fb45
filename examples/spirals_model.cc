#include "examples/spirals_model.h"

#include <cmath>
#include <optional>
#include <random>
#include <string>
#include <utility>

#include "src/01_session/learning/adam_optimizer.h"
#include "src/01_session/array_ops.h"
#include "src/platform/errors.h"
#include "src/01_session/learning/loss_ops.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/learning/nn_ops.h"
#include "src/01_session/learning/random_ops.h"
#include "src/01_session/learning/summary_ops.h"
#include "src/01_session/training_util.h"

namespace mts {
namespace {

// One fully connected layer in its own name scope, initialised as in
// examples/train_spirals_session.cc: seeded normal weights scaled by 1/sqrt(fan_in), zero
// biases.
Output Dense(const Output& in, int64_t fan_in, int64_t fan_out, const std::string& name) {
  NameScope scope(name);
  Variable w(RandomNormal({fan_in, fan_out}, 0.0, 1.0 / std::sqrt(static_cast<double>(fan_in))),
             "w");
  Variable b(Tensor::Zeros(DataType::kFloat, {fan_out}), "b");
  return Add(MatMul(in, w), b);
}

// The rows `rows` of a [n, ...] tensor of T, as a new [rows.size(), ...] tensor.
template <typename T>
Tensor GatherRows(const Tensor& from, const std::vector<int64_t>& rows) {
  std::vector<int64_t> dims = from.shape().dims();
  const int64_t row_size = from.num_elements() / dims[0];
  dims[0] = static_cast<int64_t>(rows.size());
  Tensor out = Tensor::Zeros(from.dtype(), TensorShape(dims));
  const T* src = from.data<T>();
  T* dst = out.data<T>();
  for (size_t i = 0; i < rows.size(); ++i) {
    std::copy(src + rows[i] * row_size, src + (rows[i] + 1) * row_size, dst + i * row_size);
  }
  return out;
}

}  // namespace

Output SpiralsLogits(const Output& x) {
  constexpr int kClasses = 3, kHidden = 32;
  Output hidden1 = Tanh(Dense(x, 2, kHidden, "hidden1"));
  Output hidden2 = Tanh(Dense(hidden1, kHidden, kHidden, "hidden2"));
  return Dense(hidden2, kHidden, kClasses, "logits");
}

SpiralsModel BuildSpiralsModel(double learning_rate) {
  GetDefaultGraph().set_seed(1);  // Every RandomNormal below derives its seed from this one.
  SpiralsModel m;
  m.x = Placeholder(DataType::kFloat, {TensorShape::kUnknownDim, 2}, "x");
  m.labels = Placeholder(DataType::kInt64, {TensorShape::kUnknownDim}, "labels");
  m.logits = SpiralsLogits(m.x);
  m.loss = ReduceMean(SparseSoftmaxCrossEntropyWithLogits(m.labels, m.logits), std::nullopt, false,
                      "loss");
  Output correct = Cast(Equal(ArgMax(m.logits, 1), m.labels), DataType::kFloat);
  m.accuracy = ReduceMean(correct, std::nullopt, false, "accuracy");
  // Collected in GraphKeys::kSummaries: the default Scaffold merges them, and the default
  // SummarySaverHook writes them for TensorBoard.
  ScalarSummary("loss", m.loss);
  ScalarSummary("accuracy", m.accuracy);

  m.global_step = CreateGlobalStep();
  AdamOptimizer optimizer(learning_rate);
  m.train_op = optimizer.Minimize(m.loss, m.global_step);
  return m;
}

namespace {

constexpr float kPictureHalfWidth = 1.25f;  // The spirals reach radius 1, plus noise.

// The centres of a size x size grid of pixels over the square, row by row from the top.
Tensor PictureGrid(int64_t size) {
  std::vector<float> points;
  points.reserve(size * size * 2);
  const float pixel = 2 * kPictureHalfWidth / size;
  for (int64_t row = 0; row < size; ++row) {
    for (int64_t col = 0; col < size; ++col) {
      points.push_back(-kPictureHalfWidth + (col + 0.5f) * pixel);
      points.push_back(kPictureHalfWidth - (row + 0.5f) * pixel);
    }
  }
  return Tensor::FromValues<float>({size * size, 2}, points);
}

// The dots of the data points, both [1, size, size, 3]: `keep` is 0 under a dot and 1
// elsewhere, `dots` the dark colour of the point's class there and 0 elsewhere.
std::pair<Tensor, Tensor> PictureDots(const SpiralsData& data, int64_t size) {
  std::vector<float> keep(size * size * 3, 1.0f), dots(size * size * 3, 0.0f);
  const float* xy = data.x.data<float>();
  const int64_t* label = data.labels.data<int64_t>();
  for (int64_t i = 0; i < data.x.shape().dim(0); ++i) {
    const auto col =
        static_cast<int64_t>((xy[2 * i] + kPictureHalfWidth) * size / (2 * kPictureHalfWidth));
    const auto row =
        static_cast<int64_t>((kPictureHalfWidth - xy[2 * i + 1]) * size / (2 * kPictureHalfWidth));
    for (int64_t r = row; r < row + 2; ++r) {
      for (int64_t c = col; c < col + 2; ++c) {
        if (r < 0 || r >= size || c < 0 || c >= size) continue;
        for (int64_t channel = 0; channel < 3; ++channel) keep[(r * size + c) * 3 + channel] = 0;
        dots[(r * size + c) * 3 + label[i] % 3] = 0.6f;
      }
    }
  }
  return {Tensor::FromValues<float>({1, size, size, 3}, keep),
          Tensor::FromValues<float>({1, size, size, 3}, dots)};
}

}  // namespace

// [mts:spirals-picture]
SpiralsPicture BuildSpiralsPicture(const SpiralsModel& model, const SpiralsData& data,
                                   int64_t size) {
  if (size < 8) {
    throw ValueError("BuildSpiralsPicture: size must be 8 or more, got " + std::to_string(size));
  }
  std::optional<NameScope> scope("picture");
  // The dots are fed, not constants: a constant would put 400 KB into every graph written.
  Output keep = Placeholder(DataType::kFloat, {1, size, size, 3}, "keep");
  Output dots = Placeholder(DataType::kFloat, {1, size, size, 3}, "dots");
  // Probabilities [size * size, 3] as an image [1, size, size, 3], tinted towards white.
  Output probabilities = Reshape(Softmax(model.logits), {1, size, size, 3});
  Output tint = Add(Constant(0.45f), Mul(Constant(0.55f), probabilities));
  Output image = Add(Mul(tint, keep), dots);
  // Every value is in [0, 1]; ImageSummary stretches the largest to 255, as TensorFlow does.
  auto [keep_value, dots_value] = PictureDots(data, size);
  scope.reset();  // The summary's own scope is its tag, "decision_regions".
  return {ImageSummary("decision_regions", image, /*max_outputs=*/1, /*collections=*/{}),
          {{model.x, PictureGrid(size)}, {keep, keep_value}, {dots, dots_value}}};
}
// [mts:spirals-picture-end]

SpiralsData SpiralsTrainingData() {
  return MakeSpirals(/*num_examples_per_class=*/100, /*num_classes=*/3, /*seed=*/42);
}

SpiralsBatches::SpiralsBatches(SpiralsData data, int64_t batch_size, uint64_t seed)
    : data_(std::move(data)),
      num_rows_(data_.x.shape().dim(0)),
      batch_size_(batch_size),
      batches_per_epoch_(batch_size > 0 ? (num_rows_ + batch_size - 1) / batch_size : 0),
      seed_(seed) {
  if (batch_size <= 0) {
    throw ValueError("batch_size must be positive, got " + std::to_string(batch_size) + ".");
  }
}

std::vector<int64_t> SpiralsBatches::Permutation(int64_t epoch) const {
  std::vector<int64_t> order(num_rows_);
  for (int64_t i = 0; i < num_rows_; ++i) order[i] = i;
  std::mt19937_64 engine(seed_ * 1000003u + static_cast<uint64_t>(epoch));
  for (int64_t i = num_rows_ - 1; i > 0; --i) {
    // The modulo's bias (under 2^-50 here) does not matter; its determinism does.
    const int64_t j = static_cast<int64_t>(engine() % static_cast<uint64_t>(i + 1));
    std::swap(order[i], order[j]);
  }
  return order;
}

// [mts:batch-of-step]
FeedDict SpiralsBatches::Feed(const SpiralsModel& model, int64_t step) const {
  const int64_t epoch = step / batches_per_epoch_;
  const int64_t begin = (step % batches_per_epoch_) * batch_size_;
  const int64_t end = std::min(begin + batch_size_, num_rows_);
  const std::vector<int64_t> order = Permutation(epoch);
  const std::vector<int64_t> rows(order.begin() + begin, order.begin() + end);
  return {{model.x, GatherRows<float>(data_.x, rows)},
          {model.labels, GatherRows<int64_t>(data_.labels, rows)}};
}
// [mts:batch-of-step-end]

FeedDict SpiralsBatches::FullFeed(const SpiralsModel& model) const {
  return {{model.x, data_.x}, {model.labels, data_.labels}};
}

}  // namespace mts
