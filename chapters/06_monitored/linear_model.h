// linear_model.h: the small linear-regression model both loops of chapter 06 train, so that
// the raw loop (raw_loop.cc) and the monitored loop (monitored_loop.cc) differ only in the
// loop itself.
#ifndef MTS_CHAPTERS_06_MONITORED_LINEAR_MODEL_H_
#define MTS_CHAPTERS_06_MONITORED_LINEAR_MODEL_H_

#include "src/01_session/array_ops.h"
#include "src/01_session/learning/example_data.h"
#include "src/01_session/learning/gradient_descent_optimizer.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/learning/summary_ops.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"

namespace mts {

/// The pieces of the model the loops use.
struct LinearModel {
  Variable global_step;  ///< Counts the train op's runs.
  Output loss;           ///< Mean squared error over the whole (constant) data set.
  Operation* train_op;   ///< One gradient-descent step; increments the global step.
};

/// Builds y = x w + b on 256 seeded examples of 4 features, in the default graph, with a
/// scalar summary of the loss.
inline LinearModel BuildLinearModel() {
  LinearRegressionData data = MakeLinearRegressionData(256, 4, /*seed=*/7, 0.1);
  Output x = Constant(data.x, "x");
  Output y = Constant(data.y, "y");
  Variable w(Tensor::Zeros(DataType::kFloat, {4, 1}), "w");
  Variable b(Tensor::Zeros(DataType::kFloat, {1}), "b");
  Output error = Sub(Add(MatMul(x, w), b), y);
  Output loss = ReduceMean(Square(error), std::nullopt, false, "loss");
  ScalarSummary("loss", loss);
  Variable global_step = GetOrCreateGlobalStep();
  GradientDescentOptimizer optimizer(/*learning_rate=*/0.05);
  return {global_step, loss, optimizer.Minimize(loss, global_step)};
}

}  // namespace mts

#endif  // MTS_CHAPTERS_06_MONITORED_LINEAR_MODEL_H_
