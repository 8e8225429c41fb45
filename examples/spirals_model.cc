#include "examples/spirals_model.h"

#include <cmath>
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
  Output logits = SpiralsLogits(m.x);
  m.loss = ReduceMean(SparseSoftmaxCrossEntropyWithLogits(m.labels, logits), std::nullopt, false,
                      "loss");
  Output correct = Cast(Equal(ArgMax(logits, 1), m.labels), DataType::kFloat);
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
