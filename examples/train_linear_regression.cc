// train_linear_regression: the smallest complete MonitoredTrainingSession program. Gradient
// descent fits y = x w + b to 200 noisy points whose true w and b are known.
//
//   MonitoredTrainingSession  <-- this example: hooks, a clean close, nothing else
//     MonitoredSession ... Session
//
// The TensorFlow 1.x program it mirrors:
//
//   loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
//   train_op = tf.train.GradientDescentOptimizer(FLAGS.learning_rate).minimize(loss, global_step)
//   hooks = [tf.train.StopAtStepHook(last_step=FLAGS.steps), tf.train.NanTensorHook(loss),
//            tf.train.LoggingTensorHook({"loss": loss, "step": global_step}, every_n_iter=50)]
//   with tf.train.MonitoredTrainingSession(hooks=hooks) as sess:
//       while not sess.should_stop():
//           sess.run(train_op, feed_dict)
//
// No checkpoint_dir, so no checkpoint or summary hook: the session only initialises the
// variables, runs the hooks around each step and closes cleanly. The loss is logged (on
// stderr) by LoggingTensorHook; FinalOpsHook reads the learned weights at the close.
// examples/train_spirals.cc is the full example, with checkpoints and resumption.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/flag.h"
#include "absl/flags/usage.h"
#include "examples/example_output.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/learning/example_data.h"
#include "src/01_session/learning/gradient_descent_optimizer.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/03_hooked/hooks/final_ops_hook.h"
#include "src/03_hooked/hooks/logging_tensor_hook.h"
#include "src/03_hooked/hooks/nan_tensor_hook.h"
#include "src/03_hooked/hooks/stop_at_step_hook.h"
#include "src/06_monitored/monitored_session_scope.h"
#include "src/06_monitored/monitored_training_session.h"
#include "tools/command_line.h"
#include "tools/working_directory.h"

ABSL_FLAG(int64_t, steps, 200, "Train until the global step reaches this many steps.");
ABSL_FLAG(double, learning_rate, 0.05, "Gradient descent's learning rate.");

using namespace mts;

namespace {

// Trains and prints what was learned; returns the exit status. Throws what the session
// throws (NanLossDuringTrainingError when the loss becomes NaN).
int Train(int64_t steps, double learning_rate) {
  const LinearRegressionData data = MakeLinearRegressionData(/*num_examples=*/200,
                                                             /*num_features=*/3, /*seed=*/1);
  Graph graph;
  DefaultGraphScope as_default(graph);

  // [mts:linear-regression]
  Output x = Placeholder(DataType::kFloat, {TensorShape::kUnknownDim, 3}, "x");
  Output y = Placeholder(DataType::kFloat, {TensorShape::kUnknownDim, 1}, "y");
  Variable w(Tensor::Zeros(DataType::kFloat, {3, 1}), "w");
  Variable b(Tensor::Zeros(DataType::kFloat, {1}), "b");
  Output loss = ReduceMean(Square(Sub(Add(MatMul(x, w), b), y)), std::nullopt, false, "loss");
  Variable global_step = CreateGlobalStep();
  Operation* train_op = GradientDescentOptimizer(learning_rate).Minimize(loss, global_step);

  const FeedDict feeds = {{x, data.x}, {y, data.y}};
  auto final_ops = std::make_shared<FinalOpsHook>(std::vector<Output>{w, b, loss}, feeds);
  LoggingTensorHookOptions every_50;
  every_50.every_n_iter = 50;
  MonitoredTrainingSessionOptions options;
  options.hooks = {
      StopAtStepHook::AtLastStep(steps), std::make_shared<NanTensorHook>(loss),
      std::make_shared<LoggingTensorHook>(
          std::map<std::string, Output>{{"loss", loss}, {"step", global_step}}, every_50),
      final_ops};

  std::unique_ptr<MonitoredSession> session = MonitoredTrainingSession(options);
  WithMonitoredSession(*session, [&](MonitoredSession& sess) {
    while (!sess.ShouldStop()) sess.Run({}, feeds, {train_op});
  });
  // [mts:linear-regression-end]

  const std::vector<Tensor>& learned = *final_ops->final_ops_values();
  auto print = [](const char* what, const Tensor& w, const Tensor& b) {
    std::string weights;
    char value[32];
    for (float v : w.ToVector<float>()) {
      std::snprintf(value, sizeof(value), " %.3f", v);
      weights += value;
    }
    PrintLine("%s w = [%s ], b = %.3f", what, weights.c_str(), b.scalar<float>());
  };
  PrintLine("final loss %.5f (the noise's variance is 0.01)", learned[2].scalar<float>());
  print("learned", learned[0], learned[1]);
  print("true   ", data.weights, data.bias);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  SetUpExampleOutput("train_linear_regression");  // SIGPIPE, SIGXFSZ ignored, as Python does.
  absl::SetProgramUsageMessage(
      "Fits y = x w + b to 200 noisy points with gradient descent through "
      "MonitoredTrainingSession, logging the loss every 50 steps.");
  mts::ParseFlagsOnly(argc, argv);  // --help prints the flags and exits; no other argument.
  if (!mts::EnterBuildWorkingDirectory()) return 1;  // A relative --checkpoint_dir is the user's.
  const int64_t steps = absl::GetFlag(FLAGS_steps);
  const double learning_rate = absl::GetFlag(FLAGS_learning_rate);
  if (steps <= 0 || !std::isfinite(learning_rate) || learning_rate <= 0) {
    std::fprintf(stderr,
                 "train_linear_regression: --steps must be positive and --learning_rate a "
                 "positive finite number; see --help.\n");
    return 2;
  }
  try {
    return Train(steps, learning_rate);
  } catch (const NanLossDuringTrainingError& e) {
    // Too large a step overshoots the minimum further each time, until the loss is NaN.
    const std::string default_rate =
        absl::GetFlagReflectionHandle(FLAGS_learning_rate).DefaultValue();
    std::fprintf(stderr,
                 "train_linear_regression failed: %s The model diverged: lower "
                 "--learning_rate (it was %g; the default %s converges).\n",
                 e.what(), learning_rate, default_rate.c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "train_linear_regression failed: %s\n", e.what());
    return 1;
  }
}
