// distributed_spirals --sync_replicas as separate processes (a ps and two or three workers),
// checked against the same updates made by one worker alone. Every worker feeds the whole
// data set, so every fresh gradient of a step is the same: the mean of replicas_to_aggregate
// of them is that gradient, stale ones are dropped, and K synchronous updates are K steps of
// Adam on the full batch, which one worker training by itself makes. The global step ends
// exactly at --train_steps: no gradient computed after the last update is ever applied.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/01_session/tensor.h"
#include "src/02_chief_worker/checkpoint/checkpoint_file.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/platform/file_system.h"
#include "tests/07_distributed/task_cluster.h"

namespace mts {
namespace testing {
namespace {

constexpr double kRunSecs = 90;  // Generous: two shared cores, maybe a sanitizer.
constexpr int kSteps = 40;

// Runs the job and returns every variable of its final checkpoint, which must be at kSteps.
std::map<std::string, std::vector<float>> Train(int num_workers,
                                                const std::vector<std::string>& sync_flags) {
  std::vector<std::string> flags = {"--train_steps=" + std::to_string(kSteps), "--save_steps=1000",
                                    "--log_every=10", "--recovery_wait_secs=0.05"};
  flags.insert(flags.end(), sync_flags.begin(), sync_flags.end());
  TaskCluster cluster(num_workers, flags);
  cluster.StartPs();
  for (int task = num_workers - 1; task >= 0; --task) cluster.StartWorker(task);
  for (int task = 0; task < num_workers; ++task) {
    const std::optional<int> status = cluster.WaitWorker(task, kRunSecs);
    EXPECT_EQ(status, std::optional<int>(0)) << cluster.Log("worker" + std::to_string(task));
  }
  const std::optional<std::string> latest = LatestCheckpoint(cluster.checkpoint_dir());
  std::map<std::string, std::vector<float>> values;
  if (!latest) {
    ADD_FAILURE() << "no checkpoint: " << cluster.Log("worker0");
    return values;
  }
  EXPECT_EQ(*latest, cluster.checkpoint_dir() + "/model.ckpt-" + std::to_string(kSteps));
  CheckpointReader reader(*DefaultFileSystem(), *latest);
  for (const CheckpointTensorInfo& info : reader.tensors()) {
    const Tensor t = reader.Read(info.name);
    if (t.dtype() == DataType::kFloat) values[info.name] = t.ToVector<float>();
    if (info.name == "global_step") {
      EXPECT_EQ(t.scalar<int64_t>(), kSteps) << "with " << num_workers << " workers";
    }
  }
  return values;
}

void ExpectSameModel(const std::map<std::string, std::vector<float>>& expected,
                     const std::map<std::string, std::vector<float>>& actual) {
  ASSERT_GT(expected.size(), 3u);  // The MLP's weights and biases, Adam's slots, the powers.
  ASSERT_EQ(expected.size(), actual.size());
  for (const auto& [name, values] : expected) {
    ASSERT_EQ(actual.count(name), 1u) << name;
    ASSERT_EQ(actual.at(name).size(), values.size()) << name;
    for (size_t i = 0; i < values.size(); ++i) {
      // Exact for a mean of two equal floats; within rounding for three.
      EXPECT_NEAR(actual.at(name)[i], values[i], 1e-5 + 1e-4 * std::fabs(values[i]))
          << name << "[" << i << "]";
    }
  }
}

// [mts:test-sync-replicas]
TEST(SyncReplicasMultiProcessTest, TwoWorkersAggregatingTwoMakeOneWorkersUpdates) {
  const auto alone = Train(1, {});
  ExpectSameModel(alone, Train(2, {"--sync_replicas", "--replicas_to_aggregate=2"}));
}

TEST(SyncReplicasMultiProcessTest, ThreeWorkersAggregatingTwoMakeOneWorkersUpdates) {
  const auto alone = Train(1, {});
  ExpectSameModel(alone, Train(3, {"--sync_replicas", "--replicas_to_aggregate=2"}));
}
// [mts:test-sync-replicas-end]

}  // namespace
}  // namespace testing
}  // namespace mts
