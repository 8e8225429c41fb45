// A chief that restarts while the parameter server keeps running: SessionManager restores
// the chief's checkpoint over the live model, rolling back what the workers trained since,
// as TensorFlow does; mts says so in a warning (session_manager.h). One process: an
// in-process ps on a free port of 127.0.0.1, and the chief's "lives" as successive sessions.
#include <cstdlib>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/graph.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/saver.h"
#include "src/02_chief_worker/session_manager.h"
#include "src/07_distributed/cluster_spec.h"
#include "src/07_distributed/remote_session.h"  // Links the grpc:// session factory.
#include "src/07_distributed/replica_device_setter.h"
#include "src/07_distributed/server.h"
#include "src/platform/file_system.h"
#include "src/platform/logging.h"

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

class ChiefRestartTest : public ::testing::Test {
 protected:
  ChiefRestartTest() {
    SessionManagerOptions options;
    options.ready_op = ReportUninitializedVariables();
    manager_ = std::make_unique<SessionManager>(options);
    DefaultFileSystem()->CreateDirectories(dir_);
  }

  // One life of the chief: restore the newest checkpoint of dir_, or initialise.
  std::unique_ptr<Session> StartChief(const Server& ps) {
    PrepareSessionOptions restore;
    restore.saver = &saver_;
    restore.checkpoint_dir = dir_;
    restore.init_op = init_;
    return manager_->PrepareSession(ps.target(), restore);
  }

  void Train(Session& session, int steps) {
    for (int i = 0; i < steps; ++i) session.Run({}, {}, {model_.train_op});
  }

  Model model_;
  Operation* init_ = GlobalVariablesInitializer();
  Saver saver_;
  std::unique_ptr<SessionManager> manager_;
  const std::string dir_ =
      JoinPath(std::getenv("TEST_TMPDIR"),
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
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
  }  // The chief dies; the ps keeps w = 7 at step 7.
  ScopedLogCapture log;
  std::unique_ptr<Session> second = StartChief(ps_);
  EXPECT_EQ(GlobalStepValue(*second, model_.global_step), 3);
  EXPECT_TRUE(log.Contains("The model on " + ps_.target() +
                           " was live at global step 7 and was rolled back to the checkpoint "
                           "from " +
                           dir_ + " at global step 3: 4 steps of training are lost"))
      << ::testing::PrintToString(log.lines());
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
  ScopedLogCapture log;
  std::unique_ptr<Session> second = StartChief(ps_);
  EXPECT_EQ(GlobalStepValue(*second, model_.global_step), 3);
  EXPECT_FALSE(log.Contains("rolled back")) << ::testing::PrintToString(log.lines());
}

}  // namespace
}  // namespace mts
