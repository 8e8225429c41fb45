// A model that outlives the chief's sessions, on a parameter server that keeps running
// (session_manager.h). A chief that restarts restores its checkpoint over the live model,
// rolling back what the workers trained since, as TensorFlow does; mts says so in a
// warning. A chief whose session is merely made again on the same ps processes (a slow ps
// missed a deadline) keeps the live model. A chief that would initialise over a model it did
// not write (another job on the same ps, a chief restarted without its checkpoint directory)
// refuses, naming the step the ps holds. One process: an in-process ps on a free port of
// 127.0.0.1; a chief's "lives" are successive SessionManagers, its recoveries successive
// sessions of one.
#include <cstdlib>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/graph.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/session_factory.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/saver.h"
#include "src/02_chief_worker/session_manager.h"
#include "src/07_distributed/cluster_spec.h"
#include "src/07_distributed/remote_session.h"  // Links the grpc:// session factory.
#include "src/07_distributed/replica_device_setter.h"
#include "src/07_distributed/server.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "src/platform/logging.h"
#include "tests/testing/expect_error.h"

namespace mts {
namespace {

// The chief's graph: w and the global step on the ps, a train op adding 1 to both.
struct Model {
  Model() {
    ReplicaDeviceSetter on_ps(1);
    w = Variable(Tensor::Scalar(0.0f), "w");
    global_step = GetOrCreateGlobalStep();
    train_op = Group({w.AssignAdd(Constant(1.0f)).op(), IncrementGlobalStep().op()});
  }
  Graph graph;
  DefaultGraphScope scope{graph};
  Variable w, global_step;
  Operation* train_op = nullptr;
};

using ::testing::AllOf;
using ::testing::HasSubstr;

class ChiefRestartTest : public ::testing::Test {
 protected:
  ChiefRestartTest() {
    RestartChief();
    DefaultFileSystem()->CreateDirectories(dir_);
  }

  // A new chief process: a SessionManager that has written nothing yet.
  void RestartChief() {
    SessionManagerOptions options;
    options.ready_op = ReportUninitializedVariables();
    manager_ = std::make_unique<SessionManager>(options);
  }

  // A session of the chief (its first, or one made again after a preemption error): restore
  // the newest checkpoint of `dir` (none if ""), or initialise.
  std::unique_ptr<Session> StartChief(const Server& ps, const std::string& dir,
                                      bool reinitialize_live_model = false) {
    PrepareSessionOptions restore;
    restore.saver = &saver_;
    restore.checkpoint_dir = dir;
    restore.init_op = init_;
    restore.reinitialize_live_model = reinitialize_live_model;
    return manager_->PrepareSession(ps.target(), restore);
  }
  std::unique_ptr<Session> StartChief(const Server& ps) { return StartChief(ps, dir_); }

  // The global step the ps holds now, read by a session of nobody's.
  int64_t StepOnPs() {
    SessionOptions options;
    options.target = ps_.target();
    return GlobalStepValue(*NewSession(&model_.graph, options), model_.global_step);
  }

  void Train(Session& session, int steps) {
    for (int i = 0; i < steps; ++i) session.Run({}, {}, {model_.train_op});
  }

  Model model_;
  Operation* init_ = GlobalVariablesInitializer();
  Saver saver_;
  std::unique_ptr<SessionManager> manager_;
  const std::string dir_ = JoinPath(
      std::getenv("TEST_TMPDIR"), ::testing::UnitTest::GetInstance()->current_test_info()->name());
  Server ps_{ClusterSpec({{"ps", {std::string("127.0.0.1:0")}}}), "ps", 0};
};

// The ps kept the model at step 7; the chief's checkpoint is at step 3. The restarted chief
// restores step 3 over it, and the warning names both steps and the 4 steps lost.
TEST_F(ChiefRestartTest, RestoringOverALiveModelWarnsOfTheStepsRolledBack) {
  {
    std::unique_ptr<Session> first = StartChief(ps_);
    Train(*first, 3);
    saver_.Save(*first, JoinPath(dir_, "model.ckpt"), 3);
    Train(*first, 4);  // What the workers trained after the checkpoint.
  }                    // The chief dies; the ps keeps w = 7 at step 7.
  RestartChief();
  ScopedLogCapture log;
  std::unique_ptr<Session> second = StartChief(ps_);
  EXPECT_EQ(GlobalStepValue(*second, model_.global_step), 3);
  EXPECT_TRUE(log.Contains("The model on " + ps_.target() +
                           " was live at global step 7 and was rolled back to the checkpoint "
                           "from " +
                           dir_ + " at global step 3: 4 steps of training are lost"))
      << ::testing::PrintToString(log.lines());
  EXPECT_TRUE(log.Contains("This chief did not write the live model"));
  EXPECT_TRUE(log.Contains("save checkpoints more often"));
}

// A ps that restarted lost the model: restoring onto it rolls nothing back, and is silent.
TEST_F(ChiefRestartTest, RestoringOntoAnEmptyPsIsSilent) {
  {
    std::unique_ptr<Session> first = StartChief(ps_);
    Train(*first, 3);
    saver_.Save(*first, JoinPath(dir_, "model.ckpt"), 3);
  }
  Server restarted(ClusterSpec({{"ps", {std::string("127.0.0.1:0")}}}), "ps", 0);
  ScopedLogCapture log;
  std::unique_ptr<Session> second = StartChief(restarted);
  EXPECT_EQ(GlobalStepValue(*second, model_.global_step), 3);
  EXPECT_FALSE(log.Contains("rolled back")) << ::testing::PrintToString(log.lines());
}

// A chief that restarts right after its checkpoint finds the live model at the same step:
// nothing is lost, and nothing is said.
TEST_F(ChiefRestartTest, RestoringTheLiveModelsOwnStepIsSilent) {
  {
    std::unique_ptr<Session> first = StartChief(ps_);
    Train(*first, 3);
    saver_.Save(*first, JoinPath(dir_, "model.ckpt"), 3);
  }
  RestartChief();
  ScopedLogCapture log;
  std::unique_ptr<Session> second = StartChief(ps_);
  EXPECT_EQ(GlobalStepValue(*second, model_.global_step), 3);
  EXPECT_FALSE(log.Contains("rolled back")) << ::testing::PrintToString(log.lines());
}

// [mts:test-slow-ps-keeps-the-model]
// Issue 32: a ps paused past the RPC deadline. The chief's RecoverableSession makes its
// session again through the same SessionManager; the ps processes are the same (their
// incarnations unchanged), so the model they kept, at step 7, is used as it is: the 4 steps
// since the checkpoint at step 3 are not rolled back.
TEST_F(ChiefRestartTest, ASessionMadeAgainOnTheSameServersKeepsTheLiveModel) {
  {
    std::unique_ptr<Session> first = StartChief(ps_);
    Train(*first, 3);
    saver_.Save(*first, JoinPath(dir_, "model.ckpt"), 3);
    Train(*first, 4);
  }  // A preemption error closed the session; the chief process lives on.
  ScopedLogCapture log;
  std::unique_ptr<Session> again = StartChief(ps_);
  EXPECT_EQ(GlobalStepValue(*again, model_.global_step), 7);
  EXPECT_EQ(again->Run(model_.w.value()).scalar<float>(), 7.0f);
  EXPECT_TRUE(
      log.Contains("are the ones this chief wrote the model on, unchanged: it is kept as "
                   "it is at global step 7, not restored"))
      << ::testing::PrintToString(log.lines());
  EXPECT_FALSE(log.Contains("rolled back"));
}
// [mts:test-slow-ps-keeps-the-model-end]

// The same chief after the ps restarted (a new incarnation, the model gone): it restores.
TEST_F(ChiefRestartTest, ASessionMadeAgainOnARestartedPsRestores) {
  {
    std::unique_ptr<Session> first = StartChief(ps_);
    Train(*first, 3);
    saver_.Save(*first, JoinPath(dir_, "model.ckpt"), 3);
    Train(*first, 4);
  }
  Server restarted(ClusterSpec({{"ps", {std::string("127.0.0.1:0")}}}), "ps", 0);
  std::unique_ptr<Session> again = StartChief(restarted);
  EXPECT_EQ(GlobalStepValue(*again, model_.global_step), 3);
}

// [mts:test-foreign-chief-refuses]
// Issue 32: a chief that did not write the live model and has nothing to restore (another
// job's cluster names the same ps, or this job's chief restarted with an empty or missing
// --checkpoint_dir) would run init_op over it. It refuses, naming the ps and the step it
// holds, and the model stays at step 7.
TEST_F(ChiefRestartTest, AChiefWithNothingToRestoreRefusesToInitialiseALiveModel) {
  {
    std::unique_ptr<Session> first = StartChief(ps_);
    Train(*first, 7);
  }
  const std::string empty_dir = JoinPath(dir_, "empty");
  DefaultFileSystem()->CreateDirectories(empty_dir);
  for (const std::string& dir : {std::string(), empty_dir}) {
    RestartChief();
    EXPECT_THAT([&] { StartChief(ps_, dir); },
                ::testing::ThrowsMessage<FailedPreconditionError>(AllOf(
                    HasSubstr("The parameter servers of " + ps_.target()),
                    HasSubstr("already hold a model this chief did not write: 2 of its 2 global "
                              "variables, at global step 7"),
                    HasSubstr("set reinitialize_live_model"))))
        << "checkpoint_dir '" << dir << "'";
    EXPECT_EQ(StepOnPs(), 7) << "checkpoint_dir '" << dir << "'";
  }
}
// [mts:test-foreign-chief-refuses-end]

// Told to, the chief initialises over the live model, and says what it threw away.
TEST_F(ChiefRestartTest, ReinitializeLiveModelOverwritesItWithAWarning) {
  {
    std::unique_ptr<Session> first = StartChief(ps_);
    Train(*first, 7);
  }
  RestartChief();
  ScopedLogCapture log;
  std::unique_ptr<Session> second = StartChief(ps_, "", /*reinitialize_live_model=*/true);
  EXPECT_EQ(GlobalStepValue(*second, model_.global_step), 0);
  EXPECT_TRUE(
      log.Contains("over the one it holds (2 of its 2 global variables, at global step "
                   "7), as reinitialize_live_model asks"))
      << ::testing::PrintToString(log.lines());
}

// Another job's model on the same ps: only the global step is common to both graphs, and
// even that one variable set is a live model not to be initialised over.
TEST_F(ChiefRestartTest, AnotherJobsModelOnTheSamePsIsNotInitialisedOver) {
  {
    std::unique_ptr<Session> first = StartChief(ps_);
    Train(*first, 7);
  }
  Graph other;
  DefaultGraphScope in_other(other);
  Operation* init = nullptr;
  {
    ReplicaDeviceSetter on_ps(1);
    Variable bias(Tensor::Scalar(0.0f), "other_job_bias");
    GetOrCreateGlobalStep();
    init = GlobalVariablesInitializer();
  }
  SessionManagerOptions options;
  options.ready_op = ReportUninitializedVariables();
  SessionManager other_chief(options);
  PrepareSessionOptions prepare;
  prepare.init_op = init;
  EXPECT_THAT([&] { other_chief.PrepareSession(ps_.target(), prepare); },
              ::testing::ThrowsMessage<FailedPreconditionError>(
                  HasSubstr("1 of its 2 global variables, at global step 7")));
  EXPECT_EQ(StepOnPs(), 7);
}

}  // namespace
}  // namespace mts
