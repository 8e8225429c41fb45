// MonitoredTrainingSession with master = a parameter server's grpc:// target: the whole stage-06
// stack over stage 07's RemoteSession. The model lives on the ps, the chief's checkpoints
// hold its values, and a job that is started again resumes from them, as in TensorFlow.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/graph.h"
#include "src/01_session/learning/gradient_descent_optimizer.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/checkpoint/checkpoint_file.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/03_hooked/hooks/stop_at_step_hook.h"
#include "src/06_monitored/monitored_session_scope.h"
#include "src/06_monitored/monitored_training_session.h"
#include "src/07_distributed/cluster_spec.h"
#include "src/07_distributed/remote_session.h"  // Links the grpc:// session factory.
#include "src/07_distributed/replica_device_setter.h"
#include "src/07_distributed/server.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"

namespace mts {
namespace {

// One task's model: w (on the ps) pulled towards 3 by gradient descent on (w - 3)^2.
struct Model {
  Model() {
    ReplicaDeviceSetter on_ps(1);
    w = Variable(Tensor::Scalar<float>(0), "w");
    global_step = GetOrCreateGlobalStep();
    const Output diff = Sub(w.value(), Constant(3.0f));
    train_op = GradientDescentOptimizer(0.1).Minimize(Mul(diff, diff), global_step);
  }
  Graph graph;
  DefaultGraphScope scope{graph};
  Variable w, global_step;
  Operation* train_op = nullptr;
};

// Trains a fresh model to `last_step` through MonitoredTrainingSession against `master`;
// returns the first global step the loop saw. The final checkpoint holds the result.
int64_t Train(const std::string& master, const std::string& dir, int64_t last_step) {
  Model model;
  MonitoredTrainingSessionOptions options;
  options.master = master;
  options.checkpoint_dir = dir;
  options.save_checkpoint_steps = 5;
  options.hooks = {std::make_shared<StopAtStepHook>(std::nullopt, last_step)};
  std::unique_ptr<MonitoredSession> session = MonitoredTrainingSession(options);
  int64_t first = -1;
  WithMonitoredSession(*session, [&](MonitoredSession& s) {
    while (!s.ShouldStop()) {
      const std::vector<Tensor> out = s.Run({model.global_step.value()}, {}, {model.train_op});
      if (first < 0) first = out[0].scalar<int64_t>();
    }
  });
  return first;
}

// w in the newest checkpoint of `dir`.
float SavedW(const std::string& dir) {
  return CheckpointReader(*DefaultFileSystem(), *LatestCheckpoint(dir)).Read("w").scalar<float>();
}

TEST(MonitoredTrainingSessionOverGrpcTest, TrainsOnThePsAndResumesFromItsCheckpoints) {
  Server ps(ClusterSpec({{"ps", {std::string("127.0.0.1:0")}}}), "ps", 0);
  const std::string dir = JoinPath(std::getenv("TEST_TMPDIR"), "over_grpc");
  EXPECT_EQ(Train(ps.target(), dir, 10), 0);
  EXPECT_EQ(LatestCheckpoint(dir), JoinPath(dir, "model.ckpt-10"));
  EXPECT_NEAR(SavedW(dir), 3.0f * (1 - std::pow(0.8f, 10.0f)), 1e-4);  // w_k = 3 (1 - 0.8^k)
  // w and the global step live on the ps, and every step's updates were applied there.
  EXPECT_EQ(ps.store().num_variables(), 2);
  EXPECT_GE(ps.store().num_updates(), 10);

  // The job again, against a ps that restarted empty: the chief restores step 10 onto it.
  Server restarted(ClusterSpec({{"ps", {std::string("127.0.0.1:0")}}}), "ps", 0);
  EXPECT_EQ(Train(restarted.target(), dir, 20), 10);
  EXPECT_EQ(LatestCheckpoint(dir), JoinPath(dir, "model.ckpt-20"));
  EXPECT_NEAR(SavedW(dir), 3.0f * (1 - std::pow(0.8f, 20.0f)), 1e-4);
}

}  // namespace
}  // namespace mts
