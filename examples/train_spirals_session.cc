// train_spirals_session: a small neural network learns three interleaved spirals, trained
// with nothing but a plain Session loop.
//
//   Session  <-- this example runs the bottom layer only; every chore is done by hand
//
// The TensorFlow 1.x program it mirrors:
//
//   x = tf.placeholder(tf.float32, [None, 2]); labels = tf.placeholder(tf.int64, [None])
//   hidden = tf.tanh(dense(x, 32)); hidden = tf.tanh(dense(hidden, 32))
//   logits = dense(hidden, 3)
//   loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))
//   train_op = tf.train.AdamOptimizer(0.02).minimize(loss, tf.train.get_or_create_global_step())
//   with tf.Session() as sess:
//       sess.run(tf.global_variables_initializer())
//       for step in range(400): sess.run(train_op, feed_dict)
//
// The loop initialises the variables, feeds the data, runs the train op and prints the loss:
// all the things MonitoredTrainingSession will later do for you. Everything is seeded, so
// the output is the same on every run; chapter 01_session (learning.md) shows it.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "src/01_session/learning/adam_optimizer.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/learning/example_data.h"
#include "src/01_session/learning/loss_ops.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/learning/nn_ops.h"
#include "src/01_session/learning/random_ops.h"
#include "src/01_session/session.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"

namespace {

using namespace mts;

// [mts:spirals-dense]
// One fully connected layer, in its own name scope: in * w + b. The weights start as
// seeded normal noise scaled by 1/sqrt(fan_in), so each layer's outputs start near unit
// size; the biases start at zero.
Output Dense(const Output& in, int64_t fan_in, int64_t fan_out, const std::string& name) {
  NameScope scope(name);
  Variable w(RandomNormal({fan_in, fan_out}, 0.0, 1.0 / std::sqrt(static_cast<double>(fan_in))),
             "w");
  Variable b(Tensor::Zeros(DataType::kFloat, {fan_out}), "b");
  return Add(MatMul(in, w), b);
}
// [mts:spirals-dense-end]

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) {  // It takes none: an argument meant as a flag must not pass unnoticed.
    std::fprintf(stderr,
                 "train_spirals_session: unexpected argument '%s': this program takes "
                 "none.\n",
                 argv[1]);
    return 2;
  }
  constexpr int kClasses = 3, kHidden = 32, kSteps = 400, kPrintEvery = 50;
  const SpiralsData data = MakeSpirals(/*num_examples_per_class=*/100, kClasses, /*seed=*/42);

  // [mts:spirals-graph]
  Graph graph;
  DefaultGraphScope as_default(graph);
  graph.set_seed(1);  // Every RandomNormal below derives its seed from this one.

  Output x = Placeholder(DataType::kFloat, {TensorShape::kUnknownDim, 2}, "x");
  Output labels = Placeholder(DataType::kInt64, {TensorShape::kUnknownDim}, "labels");
  Output hidden1 = Tanh(Dense(x, 2, kHidden, "hidden1"));
  Output hidden2 = Tanh(Dense(hidden1, kHidden, kHidden, "hidden2"));
  Output logits = Dense(hidden2, kHidden, kClasses, "logits");

  Output loss = ReduceMean(SparseSoftmaxCrossEntropyWithLogits(labels, logits), std::nullopt,
                           false, "loss");
  Output correct = Cast(Equal(ArgMax(logits, 1), labels), DataType::kFloat);
  Output accuracy = ReduceMean(correct, std::nullopt, false, "accuracy");

  Variable global_step = GetOrCreateGlobalStep();
  AdamOptimizer optimizer(/*learning_rate=*/0.02);
  Operation* train_op = optimizer.Minimize(loss, global_step);
  // [mts:spirals-graph-end]

  // [mts:spirals-loop]
  Session session;
  session.Run(GlobalVariablesInitializer());  // Chore 1: give every variable a value.
  const FeedDict feeds = {{x, data.x}, {labels, data.labels}};

  std::printf("%d points, %d classes, %d trainable variables\n",
              static_cast<int>(data.x.shape().dim(0)), kClasses,
              static_cast<int>(TrainableVariables().size()));
  // The global step counts the train op's runs; the loop stops on it, as StopAtStepHook will.
  for (int64_t step = 0; step < kSteps; step = GlobalStepValue(session, global_step)) {
    if (step % kPrintEvery == 0) {
      // The loss fetched in the same run as the train op is the loss *before* this step.
      const float before = session.Run({loss}, feeds, {train_op})[0].scalar<float>();
      std::printf("step %3lld  loss %.4f\n", static_cast<long long>(step), before);
    } else {
      session.Run(train_op, feeds);
    }
  }
  std::vector<Tensor> final = session.Run({loss, accuracy}, feeds);
  std::printf("step %3d  loss %.4f\n", kSteps, final[0].scalar<float>());
  std::printf("training accuracy %.3f\n", final[1].scalar<float>());
  // [mts:spirals-loop-end]
  return 0;
}
