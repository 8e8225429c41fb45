// python_beside: the C++ half of chapter 01's "TF1 Python beside C++" blocks. Each block of
// the chapter cuts one `[mts:pair-NAME]` region out of this file (docs/conf.py, `beside`),
// and this test runs them all, so a listed call that stops compiling or computing fails the
// build. docs/python_beside_test.py checks each pair's names against the names page.
#include <cmath>
#include <cstdio>

#include "chapters/python_beside_support.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/graph.h"
#include "src/01_session/learning/gradient_descent_optimizer.h"
#include "src/01_session/learning/gradients.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/session.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"

namespace {

using namespace mts;
using python_beside::Expect;
using python_beside::failures;
using python_beside::FreshDir;

void GraphAndSession() {
  // [mts:pair-graph]
  Graph graph;
  DefaultGraphScope as_default(graph);  // `with graph.as_default():`, until the scope ends
  Output a = Constant(2.0f, "a");
  Output b = Constant(3.0f, "b");
  Output total = Add(a, b, "total");
  Session sess(&graph);
  Tensor result = sess.Run(total);  // 5.0f
  // [mts:pair-graph-end]
  Expect(result.scalar<float>() == 5.0f, "2 + 3 is not 5");
}

void Feeds() {
  Graph graph;
  DefaultGraphScope as_default(graph);
  // [mts:pair-feeds]
  Output x = Placeholder(DataType::kFloat, TensorShape({}), "x");
  Output doubled = Mul(x, Constant(2.0f), "doubled");
  Session sess(&graph);
  Tensor y = sess.Run(doubled, FeedDict{{x, Tensor::Scalar(21.0f)}});  // 42.0f
  // [mts:pair-feeds-end]
  Expect(y.scalar<float>() == 42.0f, "21 * 2 is not 42");
}

void VariablesAndInitializer() {
  Graph graph;
  DefaultGraphScope as_default(graph);
  // [mts:pair-variables]
  Variable w(Tensor::Scalar(1.0f), "w");
  Operation* init = GlobalVariablesInitializer();
  Session sess(&graph);
  sess.Run(init);                      // Without it, reading w raises FailedPreconditionError.
  Tensor value = sess.Run(w.value());  // 1.0f
  // [mts:pair-variables-end]
  Expect(value.scalar<float>() == 1.0f, "w is not 1 after its initializer");
}

void FetchesAndTargets() {
  Graph graph;
  DefaultGraphScope as_default(graph);
  Variable w(Tensor::Scalar(1.0f), "w");
  Output x = Placeholder(DataType::kFloat, TensorShape({}), "x");
  Output wx = Mul(w.value(), x, "wx");
  Session sess(&graph);
  // [mts:pair-fetches-targets]
  // Fetches (values back), feeds, and targets (ops run for their effect) are three lists.
  Variable calls(Tensor::Scalar(0.0f), "calls");
  Output count = calls.AssignAdd(Constant(1.0f));
  sess.Run(GlobalVariablesInitializer());
  std::vector<Tensor> out = sess.Run({wx}, FeedDict{{x, Tensor::Scalar(4.0f)}}, {count.op()});
  float wx_value = out[0].scalar<float>();  // 4.0f, and calls is 1.0f
  // [mts:pair-fetches-targets-end]
  Expect(wx_value == 4.0f, "1 * 4 is not 4");
  Expect(sess.Run(calls.value()).scalar<float>() == 1.0f, "the target did not run once");
}

void Minimize() {
  Graph graph;
  DefaultGraphScope as_default(graph);
  // [mts:pair-minimize]
  Variable w(Tensor::Scalar(0.0f), "w");
  Output loss = Square(Sub(w.value(), Constant(3.0f)), "loss");  // (w - 3)^2
  Variable global_step = CreateGlobalStep();
  GradientDescentOptimizer optimizer(0.25);
  Operation* train_op = optimizer.Minimize(loss, global_step);
  Session sess(&graph);
  sess.Run(GlobalVariablesInitializer());
  for (int i = 0; i < 20; ++i) sess.Run(train_op);
  int64_t step = GlobalStepValue(sess, global_step.value());  // 20
  // [mts:pair-minimize-end]
  Expect(step == 20, "20 train steps did not make global_step 20");
  Expect(std::fabs(sess.Run(w.value()).scalar<float>() - 3.0f) < 1e-3f, "w did not reach 3");
}

void GradientsOfLoss() {
  Graph graph;
  DefaultGraphScope as_default(graph);
  // [mts:pair-gradients]
  Variable w(Tensor::Scalar(5.0f), "w");
  Output loss = Square(w.value(), "loss");
  std::vector<Output> grads = Gradients({loss}, {w.value()});  // d(w^2)/dw = 2w
  Session sess(&graph);
  sess.Run(GlobalVariablesInitializer());
  float dw = sess.Run(grads[0]).scalar<float>();  // 10.0f
  // [mts:pair-gradients-end]
  Expect(dw == 10.0f, "the gradient of w^2 at 5 is not 10");
}

void GlobalStepLookup() {
  Graph graph;
  DefaultGraphScope as_default(graph);
  // [mts:pair-global-step]
  Variable created = CreateGlobalStep();  // A second call raises ValueError.
  std::optional<Variable> found = GetGlobalStep();
  Session sess(&graph);
  sess.Run(GlobalVariablesInitializer());
  int64_t step = GlobalStepValue(sess, found->value());  // 0
  // [mts:pair-global-step-end]
  Expect(found.has_value() && found->name() == created.name(), "GetGlobalStep lost the step");
  Expect(step == 0, "a new global step is not 0");
}

}  // namespace

int main() {
  GraphAndSession();
  Feeds();
  VariablesAndInitializer();
  FetchesAndTargets();
  Minimize();
  GradientsOfLoss();
  GlobalStepLookup();
  if (failures == 0) std::printf("python_beside: every pair of chapter 01 computes\n");
  return failures == 0 ? 0 : 1;
}
