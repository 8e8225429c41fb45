// python_beside: the C++ half of chapter 02's "TF1 Python beside C++" blocks. Each block of
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
#include "src/01_session/session.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/02_chief_worker/chief_session_creator.h"
#include "src/02_chief_worker/saver.h"
#include "src/02_chief_worker/scaffold.h"
#include "src/02_chief_worker/session_manager.h"
#include "src/platform/errors.h"
#include "tests/testing/fake_clock.h"

namespace {

using namespace mts;
using python_beside::Expect;
using python_beside::failures;
using python_beside::FreshDir;

float Value(SessionInterface& sess, const Variable& v) {
  return sess.Run(v.value()).scalar<float>();
}

void SaveAndRestore() {
  const std::string train_dir = FreshDir();
  Graph graph;
  DefaultGraphScope as_default(graph);
  Variable w(Tensor::Scalar(1.5f), "w");
  Session sess(&graph);
  sess.Run(GlobalVariablesInitializer());
  // [mts:pair-saver]
  SaverOptions options;
  options.max_to_keep = 3;   // Older checkpoints are deleted as new ones come.
  Saver saver({}, options);  // {}: every global variable
  std::optional<std::string> path =
      saver.Save(sess, train_dir + "/model.ckpt", /*global_step=*/7);  // ".../model.ckpt-7"
  Session other_sess(&graph);
  saver.Restore(other_sess, *LatestCheckpoint(train_dir));
  // [mts:pair-saver-end]
  Expect(path && *path == train_dir + "/model.ckpt-7", "Save did not return model.ckpt-7");
  Expect(Value(other_sess, w) == 1.5f, "Restore did not bring w back");
}

void ScaffoldPieces() {
  Graph graph;
  DefaultGraphScope as_default(graph);
  Variable w(Tensor::Scalar(2.0f), "w");
  // [mts:pair-scaffold]
  auto scaffold = std::make_shared<Scaffold>();  // Every piece defaulted.
  scaffold->Finalize();  // init_op, ready_op, local_init_op, saver: made, graph frozen
  Session sess(scaffold->graph());
  sess.Run(scaffold->init_op());
  // [mts:pair-scaffold-end]
  Expect(Value(sess, w) == 2.0f, "the scaffold's init_op did not initialise w");
}

void ChiefPrepares() {
  const std::string train_dir = FreshDir();
  Graph graph;
  DefaultGraphScope as_default(graph);
  Variable w(Tensor::Scalar(3.0f), "w");
  Saver saver;
  // [mts:pair-prepare-session]
  SessionManagerOptions manager_options;
  manager_options.ready_op = ReportUninitializedVariables();
  SessionManager sm(manager_options);
  PrepareSessionOptions prepare;
  prepare.init_op = GlobalVariablesInitializer();  // Run only if there is no checkpoint.
  prepare.saver = &saver;
  prepare.checkpoint_dir = train_dir;
  std::unique_ptr<Session> sess = sm.PrepareSession("", prepare);
  // [mts:pair-prepare-session-end]
  Expect(Value(*sess, w) == 3.0f, "PrepareSession did not initialise w");
}

void WorkerWaits() {
  Graph graph;
  DefaultGraphScope as_default(graph);
  Variable w(Tensor::Scalar(4.0f), "w");
  FakeClock clock(FakeClock::Mode::kAutoAdvance);  // Sleeps return at once.
  bool gave_up = false;
  // [mts:pair-wait-for-session]
  SessionManagerOptions manager_options;
  manager_options.ready_op = ReportUninitializedVariables();
  manager_options.recovery_wait_secs = 30;  // Between two checks of the model.
  manager_options.clock = &clock;
  SessionManager sm(manager_options);
  try {
    // A worker never initialises; it waits for the chief (here, in vain).
    std::unique_ptr<Session> sess = sm.WaitForSession("", /*max_wait_secs=*/90);
  } catch (const DeadlineExceededError& e) {
    gave_up = true;  // "Session was not ready after waiting 90 secs. ..."
  }
  // [mts:pair-wait-for-session-end]
  Expect(gave_up, "WaitForSession did not give up after 90 seconds");
}

void ChiefCreator() {
  const std::string checkpoint_dir = FreshDir();
  Graph graph;
  DefaultGraphScope as_default(graph);
  Variable w(Tensor::Scalar(5.0f), "w");
  // [mts:pair-chief-session-creator]
  auto scaffold = std::make_shared<Scaffold>();
  ChiefSessionCreatorOptions options;  // TensorFlow's keyword arguments, by name.
  options.checkpoint_dir = checkpoint_dir;
  ChiefSessionCreator creator(scaffold, options);
  std::unique_ptr<SessionInterface> sess = creator.CreateSession();  // Restores or initialises.
  // [mts:pair-chief-session-creator-end]
  Expect(Value(*sess, w) == 5.0f, "the chief's session did not initialise w");
}

}  // namespace

int main() {
  SaveAndRestore();
  ScaffoldPieces();
  ChiefPrepares();
  WorkerWaits();
  ChiefCreator();
  if (failures == 0) std::printf("python_beside: every pair of chapter 02 works\n");
  return failures == 0 ? 0 : 1;
}
