// Graphs that learn: gradients, an optimizer and a plain Session loop, end to end.
//
// Two classic problems from example_data.h. A linear regression has a known answer, so the
// test can say how close training must get to it. Interleaved spirals cannot be separated
// by a line, so a model that classifies them well proves that gradients flow through hidden
// layers. Every number is seeded: the data, the initial weights, hence the whole run.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/01_session/learning/adam_optimizer.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/learning/example_data.h"
#include "src/01_session/learning/gradient_descent_optimizer.h"
#include "src/01_session/learning/loss_ops.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/learning/nn_ops.h"
#include "src/01_session/learning/random_ops.h"
#include "src/01_session/session.h"
#include "src/01_session/variables.h"

namespace mts {
namespace {

// Gradient descent on the mean squared error finds the weights the data was made from.
//
// The least-squares answer differs from the true weights only through the noise: with 256
// examples of noise 0.1 the difference is of the order 0.1 / sqrt(256) ~ 0.006 per weight
// (this seed: at most 0.012). After 300 full-batch steps the optimisation error is far
// smaller, so every learned weight and the bias must lie within kTolerance = 0.03 of the truth.
TEST(TrainingConvergenceTest, LinearRegressionFindsTheTrueWeights) {
  constexpr int64_t kExamples = 256, kFeatures = 3;
  constexpr int kSteps = 300;
  constexpr float kTolerance = 0.03f;
  const LinearRegressionData data =
      MakeLinearRegressionData(kExamples, kFeatures, /*seed=*/7, /*noise_stddev=*/0.1f);

  Graph g;
  DefaultGraphScope as_default(g);
  Output x = Placeholder(DataType::kFloat, {TensorShape::kUnknownDim, kFeatures}, "x");
  Output y = Placeholder(DataType::kFloat, {TensorShape::kUnknownDim, 1}, "y");
  Variable w(Tensor::Zeros(DataType::kFloat, {kFeatures, 1}), "w");
  Variable b(Tensor::Zeros(DataType::kFloat, {1}), "b");
  Output prediction = Add(MatMul(x, w), b);
  Output loss = ReduceMean(Square(Sub(prediction, y)));
  GradientDescentOptimizer sgd(/*learning_rate=*/0.1);
  Operation* train_op = sgd.Minimize(loss);

  Session session;
  session.Run(GlobalVariablesInitializer());
  const FeedDict feeds = {{x, data.x}, {y, data.y}};
  const float initial_loss = session.Run(loss, feeds).scalar<float>();
  for (int step = 0; step < kSteps; ++step) session.Run(train_op, feeds);
  const float final_loss = session.Run(loss, feeds).scalar<float>();

  // The remaining loss is the noise's variance, 0.01, give or take sampling.
  EXPECT_LT(final_loss, 0.02f) << "initial loss " << initial_loss;
  const std::vector<float> learned = session.Run(w.value()).ToVector<float>();
  const std::vector<float> truth = data.weights.ToVector<float>();
  for (int64_t j = 0; j < kFeatures; ++j) {
    EXPECT_NEAR(learned[j], truth[j], kTolerance) << "weight " << j;
  }
  EXPECT_NEAR(session.Run(b.value()).scalar<float>(), data.bias.scalar<float>(), kTolerance);
}

// A two-hidden-layer network trained with Adam classifies three interleaved spirals.
//
// 300 points (100 per arm), layers 2 -> 32 -> 32 -> 3 with tanh, softmax cross-entropy,
// full-batch Adam at 0.02 for kSteps = 400 steps. A linear classifier trained the same way
// gets about half of these points right (0.497); the network must reach kMinAccuracy = 0.95
// on the training points (this seed: 1.0).
TEST(TrainingConvergenceTest, MlpLearnsTheSpirals) {
  constexpr int kClasses = 3, kHidden = 32, kSteps = 400;
  constexpr float kMinAccuracy = 0.95f;
  const SpiralsData data = MakeSpirals(/*num_examples_per_class=*/100, kClasses, /*seed=*/42);

  Graph g;
  DefaultGraphScope as_default(g);
  g.set_seed(1);  // Seeds every initial weight below.
  Output x = Placeholder(DataType::kFloat, {TensorShape::kUnknownDim, 2}, "x");
  Output labels = Placeholder(DataType::kInt64, {TensorShape::kUnknownDim}, "labels");
  auto dense = [](const Output& in, int64_t fan_in, int64_t fan_out, const std::string& name) {
    NameScope scope(name);
    Variable w(RandomNormal({fan_in, fan_out}, 0.0, 1.0 / std::sqrt(static_cast<double>(fan_in))), "w");
    Variable b(Tensor::Zeros(DataType::kFloat, {fan_out}), "b");
    return Add(MatMul(in, w), b);
  };
  Output hidden1 = Tanh(dense(x, 2, kHidden, "hidden1"));
  Output hidden2 = Tanh(dense(hidden1, kHidden, kHidden, "hidden2"));
  Output logits = dense(hidden2, kHidden, kClasses, "logits");
  Output loss = ReduceMean(SparseSoftmaxCrossEntropyWithLogits(labels, logits));
  Output accuracy =
      ReduceMean(Cast(Equal(ArgMax(logits, 1), labels), DataType::kFloat), std::nullopt,
                 false, "accuracy");
  AdamOptimizer adam(/*learning_rate=*/0.02);
  Operation* train_op = adam.Minimize(loss);

  Session session;
  session.Run(GlobalVariablesInitializer());
  const FeedDict feeds = {{x, data.x}, {labels, data.labels}};
  const float initial_loss = session.Run(loss, feeds).scalar<float>();
  for (int step = 0; step < kSteps; ++step) session.Run(train_op, feeds);
  std::vector<Tensor> final = session.Run({loss, accuracy}, feeds);

  EXPECT_LT(final[0].scalar<float>(), initial_loss / 4);
  EXPECT_GE(final[1].scalar<float>(), kMinAccuracy)
      << "loss " << initial_loss << " -> " << final[0].scalar<float>();
}

}  // namespace
}  // namespace mts
