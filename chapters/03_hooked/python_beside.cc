// python_beside: the C++ half of chapter 03's "TF1 Python beside C++" blocks. Each block of
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
#include "src/01_session/session.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/02_chief_worker/saver.h"
#include "src/03_hooked/hooked_session.h"
#include "src/03_hooked/hooks/checkpoint_saver_hook.h"
#include "src/03_hooked/hooks/stop_at_step_hook.h"
#include "src/03_hooked/session_run_hook.h"

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

// [mts:pair-hook]
class LossLogger : public SessionRunHook {
 public:
  explicit LossLogger(Output loss) : loss_(loss) {}

  SessionRunArgs BeforeRun(SessionRunContext& run_context) override {
    SessionRunArgs args;
    args.fetches = {loss_};  // Added to the caller's run.
    return args;
  }

  void AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) override {
    if (run_values.results[0].scalar<float>() < 0.01f) run_context.RequestStop();
  }

 private:
  Output loss_;
};
// [mts:pair-hook-end]

void HookStops() {
  Model model;
  auto sess = std::make_unique<Session>(&model.graph);
  sess->Run(GlobalVariablesInitializer());
  HookedSession hooked(std::move(sess), {std::make_shared<LossLogger>(model.loss)});
  int runs = 0;
  while (!hooked.ShouldStop() && runs < 100) {
    hooked.Run(model.train_op);
    ++runs;
  }
  Expect(hooked.ShouldStop(), "LossLogger never asked to stop");
  Expect(runs > 1 && runs < 100, "LossLogger stopped at the first run or never");
}

void StopAtStep() {
  Model model;
  Operation* train_op = model.train_op;
  // [mts:pair-stop-at-step]
  auto hook = std::make_shared<StopAtStepHook>(/*num_steps=*/std::nullopt, /*last_step=*/5);
  hook->Begin();  // Before the graph is finalized: the hook finds the global step.
  auto sess = std::make_unique<Session>(&model.graph);
  sess->Run(GlobalVariablesInitializer());
  hook->AfterCreateSession(*sess, nullptr);
  HookedSession hooked(std::move(sess), {hook});
  while (!hooked.ShouldStop()) hooked.Run(train_op);  // Five steps, then stop.
  // [mts:pair-stop-at-step-end]
  Expect(GlobalStepValue(*hooked.inner(), model.global_step.value()) == 5,
         "did not stop at step 5");
}

void SaveEverySteps() {
  const std::string checkpoint_dir = FreshDir();
  Model model;
  Operation* train_op = model.train_op;
  auto stop_hook = std::make_shared<StopAtStepHook>(std::nullopt, 5);
  // [mts:pair-checkpoint-saver-hook]
  CheckpointSaverHookOptions options;
  options.save_steps = 2;
  options.saver = std::make_shared<Saver>();
  auto saver_hook = std::make_shared<CheckpointSaverHook>(checkpoint_dir, options);
  saver_hook->Begin();
  stop_hook->Begin();
  auto sess = std::make_unique<Session>(&model.graph);
  sess->Run(GlobalVariablesInitializer());
  saver_hook->AfterCreateSession(*sess, nullptr);  // Saves model.ckpt-0.
  stop_hook->AfterCreateSession(*sess, nullptr);
  HookedSession hooked(std::move(sess), {saver_hook, stop_hook});
  while (!hooked.ShouldStop()) hooked.Run(train_op);  // Saves at steps 2 and 4.
  saver_hook->End(*hooked.inner());                   // The raw session: a last save, at step 5.
  // [mts:pair-checkpoint-saver-hook-end]
  std::optional<std::string> latest = LatestCheckpoint(checkpoint_dir);
  Expect(latest && *latest == checkpoint_dir + "/model.ckpt-5", "no checkpoint at step 5");
}

}  // namespace

int main() {
  HookStops();
  StopAtStep();
  SaveEverySteps();
  if (failures == 0) std::printf("python_beside: every pair of chapter 03 works\n");
  return failures == 0 ? 0 : 1;
}
