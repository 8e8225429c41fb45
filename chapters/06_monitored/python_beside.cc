// python_beside: the C++ half of chapter 06's "TF1 Python beside C++" blocks. Each block of
// the chapter cuts one `[mts:pair-NAME]` region out of this file (docs/conf.py, `beside`),
// and this test runs them all, so a listed call that stops compiling or working fails the
// build. docs/python_beside_test.py checks each pair's names against the names page.
#include <stdlib.h>

#include <cstdio>
#include <memory>
#include <string>

#include "chapters/python_beside_support.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/graph.h"
#include "src/01_session/learning/gradient_descent_optimizer.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/02_chief_worker/chief_session_creator.h"
#include "src/03_hooked/hooks/stop_at_step_hook.h"
#include "src/06_monitored/monitored_session.h"
#include "src/06_monitored/monitored_session_scope.h"
#include "src/06_monitored/monitored_training_session.h"
#include "src/06_monitored/step_context.h"

namespace {

using namespace mts;
using python_beside::Expect;
using python_beside::failures;
using python_beside::FreshDir;

// A model to train: w moves towards 3, the global step counts the steps.
struct Model {
  Graph graph;
  DefaultGraphScope as_default{graph};
  Variable w{Tensor::Scalar(0.0f), "w"};
  Output loss = Square(Sub(w.value(), Constant(3.0f)), "loss");
  Variable global_step = CreateGlobalStep();
  GradientDescentOptimizer optimizer{0.25};
  Operation* train_op = optimizer.Minimize(loss, global_step);
};

void TrainingSession() {
  const std::string checkpoint_dir = FreshDir();
  Model model;
  Operation* train_op = model.train_op;
  // [mts:pair-monitored-training-session]
  MonitoredTrainingSessionOptions options;
  options.checkpoint_dir = checkpoint_dir;  // Restore from, save to and write summaries in.
  options.save_checkpoint_steps = 10;
  options.hooks = {std::make_shared<StopAtStepHook>(std::nullopt, /*last_step=*/20)};
  options.stop_on_signals = false;  // mts's own option; TensorFlow has no signal handling.
  std::unique_ptr<MonitoredSession> session = MonitoredTrainingSession(options);
  WithMonitoredSession(*session, [&](MonitoredSession& sess) {  // `with ... as sess:`
    while (!sess.ShouldStop()) sess.Run(train_op);
  });  // Closed: hooks' End (step 20 was saved by AfterRun: End saves nothing), threads joined.
  // [mts:pair-monitored-training-session-end]
  std::optional<std::string> latest = LatestCheckpoint(checkpoint_dir);
  Expect(latest && *latest == checkpoint_dir + "/model.ckpt-20", "no checkpoint at step 20");
}

void StepFunction() {
  Model model;
  Output loss = model.loss;
  Operation* train_op = model.train_op;
  auto creator = std::make_shared<ChiefSessionCreator>();
  float last_loss = 1e9f;
  // [mts:pair-run-step-fn]
  auto step_fn = [&](StepContext& step_context) {
    float loss_value = step_context.RunWithHooks({loss}, {}, {train_op})[0].scalar<float>();
    if (loss_value < 0.01f) step_context.RequestStop();  // Throws StopIteration.
    return loss_value;
  };
  MonitoredSession session(/*session_creator=*/creator);
  WithMonitoredSession(session, [&](MonitoredSession& sess) {  // StopIteration: a clean end.
    while (!sess.ShouldStop()) last_loss = sess.RunStepFn(step_fn);
  });
  // [mts:pair-run-step-fn-end]
  Expect(last_loss < 0.1f, "the step function did not train before it stopped");
}

void MonitoredWithCreator() {
  const std::string checkpoint_dir = FreshDir();
  Model model;
  Operation* train_op = model.train_op;
  MonitoredSession::Hooks hooks = {std::make_shared<StopAtStepHook>(std::nullopt, 3)};
  // [mts:pair-monitored-session]
  ChiefSessionCreatorOptions options;
  options.checkpoint_dir = checkpoint_dir;
  auto creator = std::make_shared<ChiefSessionCreator>(/*scaffold=*/nullptr, options);
  MonitoredSession sess(/*session_creator=*/creator, hooks);  // Only the hooks given.
  while (!sess.ShouldStop()) sess.Run(train_op);
  sess.Close();
  // [mts:pair-monitored-session-end]
  Expect(!LatestCheckpoint(checkpoint_dir).has_value(), "a plain MonitoredSession saved");
}

void Singular() {
  const std::string checkpoint_dir = FreshDir();
  Model model;
  Operation* train_op = model.train_op;
  // [mts:pair-singular-monitored-session]
  SingularMonitoredSessionOptions options;  // TensorFlow's keyword arguments, as fields.
  options.hooks = {std::make_shared<StopAtStepHook>(std::nullopt, /*last_step=*/3)};
  options.checkpoint_dir = checkpoint_dir;  // Restored from; saved to only by a saver hook.
  SingularMonitoredSession session(options);
  WithMonitoredSession(session, [&](MonitoredSession& sess) {  // `with ... as sess:`
    while (!sess.ShouldStop()) sess.Run(train_op);
  });
  // [mts:pair-singular-monitored-session-end]
  Expect(!LatestCheckpoint(checkpoint_dir).has_value(), "a SingularMonitoredSession saved");
}

}  // namespace

int main() {
  TrainingSession();
  StepFunction();
  MonitoredWithCreator();
  Singular();
  if (failures == 0) std::printf("python_beside: every pair of chapter 06 works\n");
  return failures == 0 ? 0 : 1;
}
