// Tests of the best-k checkpoints exercise.
#include "chapters/02_chief_worker/exercises/best_k_checkpoints/best_k_checkpoints.h"

#include <errno.h>
#include <stdlib.h>

#include <cstdlib>
#include <memory>

#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/session.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/platform/errors.h"
#include "tests/testing/failing_file_system.h"
#include "tests/testing/forwarding_file_system.h"

namespace mts {
namespace {

using Paths = std::vector<std::string>;

// A one-variable model whose value records the step it was saved at, and a fresh directory.
class BestCheckpointKeeperTest : public ::testing::Test {
 protected:
  BestCheckpointKeeperTest() {
    std::string dir = JoinPath(std::getenv("TEST_TMPDIR"), "best_k.XXXXXX");
    dir_ = ::mkdtemp(dir.data());
    set_value_ = value_.Assign(feed_).op();
    saver_ = std::make_unique<Saver>(std::vector<Variable>{value_});
  }

  // Sets the variable to `step`, then saves through the keeper.
  bool SaveAt(BestCheckpointKeeper& keeper, int64_t step, double metric) {
    session_.Run(set_value_, {{feed_, Tensor::Scalar(static_cast<float>(step))}});
    return keeper.Save(session_, step, metric);
  }
  std::string Ckpt(int64_t step) const { return prefix() + "-" + std::to_string(step); }
  std::string prefix() const { return JoinPath(dir_, "model.ckpt"); }
  bool Exists(int64_t step) const { return DefaultFileSystem()->Exists(Ckpt(step)); }
  Paths KeptPaths(const BestCheckpointKeeper& keeper) const {
    Paths paths;
    for (const ScoredCheckpoint& c : keeper.best()) paths.push_back(c.path);
    return paths;
  }

  std::string dir_;
  Graph graph_;
  DefaultGraphScope scope_{graph_};
  Variable value_{Tensor::Scalar(0.0f), "value"};
  Output feed_ = Placeholder(DataType::kFloat, TensorShape({}), "feed");
  Operation* set_value_ = nullptr;
  std::unique_ptr<Saver> saver_;
  Session session_;
};

// Only the k lowest metrics survive, on disk and in best(), best first.
TEST_F(BestCheckpointKeeperTest, KeepsTheKLowestMetrics) {
  BestCheckpointKeeper keeper(saver_.get(), prefix(), 2);
  SaveAt(keeper, 1, 0.5);
  SaveAt(keeper, 2, 0.3);
  SaveAt(keeper, 3, 0.9);
  SaveAt(keeper, 4, 0.1);
  EXPECT_EQ(KeptPaths(keeper), (Paths{Ckpt(4), Ckpt(2)}));
  EXPECT_EQ(keeper.best().front().metric, 0.1);
  EXPECT_TRUE(Exists(4));
  EXPECT_TRUE(Exists(2));
  EXPECT_FALSE(Exists(1));
  EXPECT_FALSE(Exists(3));
}

// Save says whether the new checkpoint made the cut; one that did not is deleted at once.
TEST_F(BestCheckpointKeeperTest, ReportsWhetherTheNewCheckpointIsKept) {
  BestCheckpointKeeper keeper(saver_.get(), prefix(), 2);
  EXPECT_TRUE(SaveAt(keeper, 1, 0.5));
  EXPECT_TRUE(SaveAt(keeper, 2, 0.7));
  EXPECT_FALSE(SaveAt(keeper, 3, 0.9));
  EXPECT_FALSE(Exists(3));
  EXPECT_TRUE(SaveAt(keeper, 4, 0.6));
  EXPECT_FALSE(Exists(2));
}

// A tie goes to the checkpoint already kept.
TEST_F(BestCheckpointKeeperTest, TiesGoToTheEarlierCheckpoint) {
  BestCheckpointKeeper keeper(saver_.get(), prefix(), 1);
  EXPECT_TRUE(SaveAt(keeper, 1, 0.5));
  EXPECT_FALSE(SaveAt(keeper, 2, 0.5));
  EXPECT_EQ(KeptPaths(keeper), (Paths{Ckpt(1)}));
}

// Saving a step again (after a restart from an older checkpoint, say) writes the same path:
// its old entry goes, as TensorFlow's Saver drops a path it saves again, so the path is kept
// once, with its new metric, and dropping the stale entry cannot delete the file it names.
TEST_F(BestCheckpointKeeperTest, SavingAStepAgainReplacesItsEntry) {
  BestCheckpointKeeper keeper(saver_.get(), prefix(), 2);
  SaveAt(keeper, 1, 1.0);
  SaveAt(keeper, 2, 5.0);
  EXPECT_TRUE(SaveAt(keeper, 2, 0.5));
  EXPECT_EQ(KeptPaths(keeper), (Paths{Ckpt(2), Ckpt(1)}));
  EXPECT_EQ(keeper.best().front().metric, 0.5);
  EXPECT_TRUE(Exists(2));
  EXPECT_TRUE(Exists(1));
  const std::optional<CheckpointState> state =
      GetCheckpointState(dir_, BestCheckpointKeeper::kStateFile);
  ASSERT_TRUE(state);
  EXPECT_EQ(state->all_model_checkpoint_paths, (Paths{Ckpt(1), Ckpt(2)}));
}

// The keeper's state file names the best as its model path and lists the kept worst first,
// so LatestCheckpoint(dir, "best_checkpoint") finds the best.
TEST_F(BestCheckpointKeeperTest, StateFileNamesTheBestLast) {
  BestCheckpointKeeper keeper(saver_.get(), prefix(), 3);
  SaveAt(keeper, 1, 0.4);
  SaveAt(keeper, 2, 0.2);
  SaveAt(keeper, 3, 0.3);
  SaveAt(keeper, 4, 0.8);
  std::optional<CheckpointState> state = GetCheckpointState(dir_, BestCheckpointKeeper::kStateFile);
  ASSERT_TRUE(state);
  EXPECT_EQ(state->model_checkpoint_path, Ckpt(2));
  EXPECT_EQ(state->all_model_checkpoint_paths, (Paths{Ckpt(1), Ckpt(3), Ckpt(2)}));
  EXPECT_EQ(LatestCheckpoint(dir_, BestCheckpointKeeper::kStateFile), Ckpt(2));
}

// Every path the state file names exists: nothing it names was deleted.
TEST_F(BestCheckpointKeeperTest, EverythingTheStateFileNamesExists) {
  BestCheckpointKeeper keeper(saver_.get(), prefix(), 2);
  const double metrics[] = {0.9, 0.8, 0.95, 0.1, 0.5, 0.05, 0.7};
  for (int step = 1; step <= 7; ++step) {
    SaveAt(keeper, step, metrics[step - 1]);
    const std::optional<CheckpointState> state =
        GetCheckpointState(dir_, BestCheckpointKeeper::kStateFile);
    ASSERT_TRUE(state);
    for (const std::string& path : state->all_model_checkpoint_paths) {
      EXPECT_TRUE(DefaultFileSystem()->Exists(path)) << path << " after step " << step;
    }
  }
  // Only the two best remain in the directory, besides the state file.
  EXPECT_EQ(DefaultFileSystem()->ListDirectory(dir_),
            (Paths{"best_checkpoint", "model.ckpt-4", "model.ckpt-6"}));
}

// The best checkpoint restores the values of the step it was saved at.
TEST_F(BestCheckpointKeeperTest, TheBestRestores) {
  BestCheckpointKeeper keeper(saver_.get(), prefix(), 2);
  SaveAt(keeper, 1, 0.5);
  SaveAt(keeper, 2, 0.1);
  SaveAt(keeper, 3, 0.9);
  Session fresh;
  saver_->Restore(fresh, *LatestCheckpoint(dir_, BestCheckpointKeeper::kStateFile));
  EXPECT_EQ(fresh.Run(value_.value()).scalar<float>(), 2.0f);
}

// A file system whose deletions fail (a read-only directory, say); everything else works.
class UndeletableFileSystem : public ForwardingFileSystem {
 public:
  void DeleteFile(const std::string& path) override {
    ++attempts;
    throw PermissionDeniedError("cannot delete " + path);
  }
  int attempts = 0;
};

// A deletion that fails costs disk space, not the save: Save neither throws nor forgets what
// it decided, and the state file names only the kept checkpoints.
TEST_F(BestCheckpointKeeperTest, AFailedDeletionIsNotAFailedSave) {
  UndeletableFileSystem fs;
  BestCheckpointKeeper keeper(saver_.get(), prefix(), 1, &fs);
  SaveAt(keeper, 1, 0.5);
  EXPECT_FALSE(SaveAt(keeper, 2, 0.9));
  EXPECT_EQ(fs.attempts, 1);
  EXPECT_EQ(KeptPaths(keeper), (Paths{Ckpt(1)}));
  EXPECT_TRUE(Exists(2));  // Left behind, but named by nothing.
  EXPECT_EQ(LatestCheckpoint(dir_, BestCheckpointKeeper::kStateFile), Ckpt(1));
  EXPECT_TRUE(SaveAt(keeper, 3, 0.1));
  EXPECT_EQ(KeptPaths(keeper), (Paths{Ckpt(3)}));
}

// When the state file cannot be written, Save throws, and the keeper still describes the
// disk: best() and the state file are as before, and no kept checkpoint was deleted.
TEST_F(BestCheckpointKeeperTest, AFailedStateFileWriteChangesNothingKept) {
  FailingWritesFileSystem fs(BestCheckpointKeeper::kStateFile, ENOSPC);
  fs.set_failing(false);
  BestCheckpointKeeper keeper(saver_.get(), prefix(), 1, &fs);
  SaveAt(keeper, 1, 0.5);
  fs.set_failing(true);
  EXPECT_THROW(SaveAt(keeper, 2, 0.1), OpError);
  EXPECT_EQ(KeptPaths(keeper), (Paths{Ckpt(1)}));
  EXPECT_TRUE(Exists(1));
  EXPECT_EQ(LatestCheckpoint(dir_, BestCheckpointKeeper::kStateFile), Ckpt(1));
  fs.set_failing(false);
  EXPECT_TRUE(SaveAt(keeper, 3, 0.2));
  EXPECT_EQ(KeptPaths(keeper), (Paths{Ckpt(3)}));
  EXPECT_FALSE(Exists(1));
}

// k must be at least one.
TEST_F(BestCheckpointKeeperTest, RejectsKBelowOne) {
  EXPECT_THROW(BestCheckpointKeeper(saver_.get(), prefix(), 0), ValueError);
}

}  // namespace
}  // namespace mts
