// Exact resumption, the promise of examples/train_spirals.cc: a run stopped and resumed
// from its checkpoint ends with the same bits as a run that never stopped.
//
// Each "process" below is a fresh Graph with the example's model, a MonitoredTrainingSession
// on a checkpoint directory (it restores the newest checkpoint there), and the example's
// loop, whose batch is a function of the global step. A process ends in one of two ways:
//   - cleanly: the session's clean close runs CheckpointSaverHook's End, the final save;
//   - killed: everything is dropped without End (CloseAfterError, as after a crash), so
//     only the periodic checkpoints (save_checkpoint_steps) survive and the steps since the
//     last one are trained again.
// The final checkpoints are compared tensor by tensor, byte for byte: weights, Adam's
// moments and beta powers, and the global step. A last test shows why the batch must
// depend on the global step: a loop that counts its own steps resumes on other batches,
// and the bytes differ.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "examples/spirals_model.h"
#include "gtest/gtest.h"
#include "src/01_session/graph.h"
#include "src/01_session/training_util.h"
#include "src/02_chief_worker/checkpoint/checkpoint_file.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/03_hooked/hooks/stop_at_step_hook.h"
#include "src/06_monitored/monitored_session_scope.h"
#include "src/06_monitored/monitored_training_session.h"
#include "src/platform/file_system.h"

namespace mts {
namespace {

constexpr int64_t kBatchSize = 32;  // 300 points: 10 batches per epoch, the last of 12.
constexpr uint64_t kBatchSeed = 7;
constexpr double kLearningRate = 0.02;
constexpr int64_t kSteps = 300;  // 30 epochs: resumptions below land mid-epoch.

enum class Ending { kClean, kKilled };
enum class BatchIndex { kGlobalStep, kLocalCounter };

// What one process did.
struct ProcessReport {
  int64_t first_step = -1;  // The global step of its first training step.
  int64_t steps_run = 0;    // How many training steps it ran.
};

// One process: trains in `dir` up to global step `last_step` with the example's loop, and
// ends as `ending` says. `save_steps` set: a checkpoint every that many steps (else only
// the first and the final saves, the example's defaults within this short run).
ProcessReport TrainProcess(const std::string& dir, int64_t last_step, Ending ending,
                           std::optional<int64_t> save_steps = std::nullopt,
                           BatchIndex batch_index = BatchIndex::kGlobalStep) {
  Graph graph;
  DefaultGraphScope as_default(graph);
  SpiralsModel model = BuildSpiralsModel(kLearningRate);
  SpiralsBatches batches(SpiralsTrainingData(), kBatchSize, kBatchSeed);

  MonitoredTrainingSessionOptions options;
  options.checkpoint_dir = dir;
  options.save_checkpoint_steps = save_steps;
  options.hooks = {StopAtStepHook::AtLastStep(last_step)};
  std::unique_ptr<MonitoredSession> session = MonitoredTrainingSession(options);

  ProcessReport report;
  auto train = [&](MonitoredSession& sess) {
    while (!sess.ShouldStop()) {
      sess.RunStepFn([&](StepContext& context) {
        const int64_t step = GlobalStepValue(context.session(), model.global_step);
        if (report.first_step < 0) report.first_step = step;
        const int64_t batch_of = batch_index == BatchIndex::kGlobalStep ? step : report.steps_run;
        context.RunWithHooks({}, batches.Feed(model, batch_of), {model.train_op});
        ++report.steps_run;
      });
    }
  };
  if (ending == Ending::kClean) {
    WithMonitoredSession(*session, train);
  } else {
    train(*session);
    session->CloseAfterError();  // The process dies: no hook's End, no final save.
  }
  return report;
}

// The global step stored in checkpoint `path`.
int64_t StepOf(const std::string& path) {
  return CheckpointReader(*DefaultFileSystem(), path).Read("global_step").scalar<int64_t>();
}

// The raw bytes of a numeric tensor: bit-for-bit comparison, where -0.0 != 0.0 and NaN
// equals itself.
std::string BytesOf(const Tensor& t) {
  const void* data = nullptr;
  switch (t.dtype()) {
    case DataType::kFloat:
      data = t.data<float>();
      break;
    case DataType::kDouble:
      data = t.data<double>();
      break;
    case DataType::kInt32:
      data = t.data<int32_t>();
      break;
    case DataType::kInt64:
      data = t.data<int64_t>();
      break;
    default:
      ADD_FAILURE() << "unexpected dtype in a checkpoint: " << t.DebugString();
      return "";
  }
  return std::string(static_cast<const char*>(data), t.num_elements() * DataTypeSize(t.dtype()));
}

// Expects the newest checkpoints of `dir_a` and `dir_b` to hold the same tensors, with
// the same names, types, shapes and bytes.
void ExpectSameBits(const std::string& dir_a, const std::string& dir_b) {
  const std::optional<std::string> a_path = LatestCheckpoint(dir_a);
  const std::optional<std::string> b_path = LatestCheckpoint(dir_b);
  ASSERT_TRUE(a_path && b_path);
  CheckpointReader a(*DefaultFileSystem(), *a_path), b(*DefaultFileSystem(), *b_path);
  ASSERT_EQ(a.tensors().size(), b.tensors().size());
  // 6 weights and biases, 12 Adam moments, 2 beta powers, the global step.
  EXPECT_EQ(a.tensors().size(), 21u);
  for (size_t i = 0; i < a.tensors().size(); ++i) {
    const std::string& name = a.tensors()[i].name;
    ASSERT_EQ(name, b.tensors()[i].name);
    const Tensor ta = a.Read(name), tb = b.Read(name);
    ASSERT_EQ(ta.dtype(), tb.dtype()) << name;
    ASSERT_EQ(ta.shape().dims(), tb.shape().dims()) << name;
    EXPECT_TRUE(BytesOf(ta) == BytesOf(tb))
        << name << " differs between " << *a_path << " and " << *b_path << ":\n"
        << ta.DebugString() << "\n"
        << tb.DebugString();
  }
}

class ExactResumeTest : public ::testing::Test {
 protected:
  // A fresh directory per use, under the test's temporary directory.
  std::string Dir(const std::string& name) {
    const std::string dir =
        JoinPath(JoinPath(std::getenv("TEST_TMPDIR"),
                          ::testing::UnitTest::GetInstance()->current_test_info()->name()),
                 name);
    DefaultFileSystem()->CreateDirectories(dir);
    return dir;
  }

  // The uninterrupted run every other is compared with.
  std::string OneGo() {
    const std::string dir = Dir("one_go");
    const ProcessReport report = TrainProcess(dir, kSteps, Ending::kClean);
    EXPECT_EQ(report.first_step, 0);
    EXPECT_EQ(report.steps_run, kSteps);
    EXPECT_EQ(StepOf(*LatestCheckpoint(dir)), kSteps);
    return dir;
  }
};

// Stopped cleanly at step 137 (final save), resumed there: the same bits at step 300.
TEST_F(ExactResumeTest, CleanStopThenResumeEqualsOneGo) {
  const std::string one_go = OneGo();
  const std::string dir = Dir("resumed");

  EXPECT_EQ(TrainProcess(dir, 137, Ending::kClean).steps_run, 137);
  ASSERT_EQ(StepOf(*LatestCheckpoint(dir)), 137);  // The final save of the clean close.

  const ProcessReport second = TrainProcess(dir, kSteps, Ending::kClean);
  EXPECT_EQ(second.first_step, 137);  // It resumed; it did not start over.
  EXPECT_EQ(second.steps_run, kSteps - 137);
  ExpectSameBits(one_go, dir);
}

// Stopped three times, each resumed: still the same bits.
TEST_F(ExactResumeTest, ManyStopsThenResumeEqualsOneGo) {
  const std::string one_go = OneGo();
  const std::string dir = Dir("resumed");
  int64_t steps = 0;
  for (int64_t stop : std::vector<int64_t>{1, 95, 96, 211, kSteps}) {
    const ProcessReport report = TrainProcess(dir, stop, Ending::kClean);
    EXPECT_EQ(report.first_step, steps);
    EXPECT_EQ(report.steps_run, stop - steps);
    steps = stop;
  }
  ExpectSameBits(one_go, dir);
}

// Killed at step 137 with checkpoints every 50 steps: the newest is step 100, steps
// 100-136 run again after the restart, and the end is still the same bits.
TEST_F(ExactResumeTest, KilledThenResumedFromPeriodicCheckpointEqualsOneGo) {
  const std::string one_go = OneGo();
  const std::string dir = Dir("killed");

  EXPECT_EQ(TrainProcess(dir, 137, Ending::kKilled, /*save_steps=*/50).steps_run, 137);
  ASSERT_EQ(StepOf(*LatestCheckpoint(dir)), 100);  // No final save: the last periodic one.

  const ProcessReport second = TrainProcess(dir, kSteps, Ending::kClean, /*save_steps=*/50);
  EXPECT_EQ(second.first_step, 100);
  EXPECT_EQ(second.steps_run, kSteps - 100);
  ExpectSameBits(one_go, dir);
}

// Why the batch is a function of the global step: a loop that numbers batches by its own
// counter starts the data over after a resume, trains on other batches, and ends elsewhere.
TEST_F(ExactResumeTest, BatchesFromALocalCounterDoNotResumeExactly) {
  const std::string one_go = OneGo();
  const std::string dir = Dir("local_counter");
  TrainProcess(dir, 137, Ending::kClean, std::nullopt, BatchIndex::kLocalCounter);
  TrainProcess(dir, kSteps, Ending::kClean, std::nullopt, BatchIndex::kLocalCounter);

  CheckpointReader a(*DefaultFileSystem(), *LatestCheckpoint(one_go));
  CheckpointReader b(*DefaultFileSystem(), *LatestCheckpoint(dir));
  EXPECT_NE(BytesOf(a.Read("hidden1/w")), BytesOf(b.Read("hidden1/w")));
  EXPECT_EQ(StepOf(*LatestCheckpoint(dir)), kSteps);  // Same step, other weights.
}

}  // namespace
}  // namespace mts
