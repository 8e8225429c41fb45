// The checkpoint-management part of TensorFlow's saver_test.py (MaxToKeepTest,
// KeepCheckpointEveryNHoursTest, CheckpointStateTest), case by case: each TEST is named
// <TF test class>.<TF test method>. mts writes one file at the prefix path, so "the
// checkpoint exists" is that file existing.
#include "src/02_chief_worker/saver.h"

#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/session.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/new_dir.h"

namespace mts {
namespace {

using ::testing::ElementsAre;

bool Exists(const std::string& path) { return DefaultFileSystem()->Exists(path); }

// ---- MaxToKeepTest --------------------------------------------------------------------------

class MaxToKeepTest : public ::testing::Test {
 protected:
  void AssertCheckpointState(const std::string& model_checkpoint_path,
                             const std::vector<std::string>& all_model_checkpoint_paths) {
    const std::optional<CheckpointState> state = GetCheckpointState(save_dir_);
    ASSERT_TRUE(state);
    EXPECT_EQ(state->model_checkpoint_path, model_checkpoint_path);
    EXPECT_EQ(state->all_model_checkpoint_paths, all_model_checkpoint_paths);
  }
  std::string SaveAs(Saver& saver, const std::string& name) {
    return *saver.Save(session_, JoinPath(save_dir_, name));
  }
  std::shared_ptr<Saver> MakeSaver(int max_to_keep) {
    SaverOptions options;
    options.max_to_keep = max_to_keep;
    return std::make_shared<Saver>(std::vector<Variable>{v_}, options);
  }

  std::string save_dir_ = NewDir();
  Graph graph_;
  DefaultGraphScope as_default_{graph_};
  Variable v_{Tensor::Scalar(10.0f), "v"};
  Session session_{&graph_};
  void SetUp() override { session_.Run(GlobalVariablesInitializer()); }
};

TEST_F(MaxToKeepTest, testNonSharded) {
  auto save = MakeSaver(2);
  EXPECT_TRUE(save->last_checkpoints().empty());
  std::string s1 = SaveAs(*save, "s1");
  EXPECT_THAT(save->last_checkpoints(), ElementsAre(s1));
  EXPECT_TRUE(Exists(s1));
  AssertCheckpointState(s1, {s1});
  std::string s2 = SaveAs(*save, "s2");
  EXPECT_THAT(save->last_checkpoints(), ElementsAre(s1, s2));
  AssertCheckpointState(s2, {s1, s2});
  std::string s3 = SaveAs(*save, "s3");
  EXPECT_THAT(save->last_checkpoints(), ElementsAre(s2, s3));
  EXPECT_FALSE(Exists(s1));
  EXPECT_TRUE(Exists(s2));
  EXPECT_TRUE(Exists(s3));
  AssertCheckpointState(s3, {s2, s3});

  // A second helper that knows the first's checkpoints, and a third that knows none.
  auto save2 = MakeSaver(2);
  save2->RecoverLastCheckpoints(save->last_checkpoints());
  auto save3 = MakeSaver(2);

  // The first helper: s2 again (the old s2 is removed from the list, the new appended).
  s2 = SaveAs(*save, "s2");
  EXPECT_THAT(save->last_checkpoints(), ElementsAre(s3, s2));
  EXPECT_FALSE(Exists(s1));
  EXPECT_TRUE(Exists(s3));
  EXPECT_TRUE(Exists(s2));
  AssertCheckpointState(s2, {s3, s2});
  s1 = SaveAs(*save, "s1");  // s3 is now the oldest, and goes.
  EXPECT_THAT(save->last_checkpoints(), ElementsAre(s2, s1));
  EXPECT_FALSE(Exists(s3));
  EXPECT_TRUE(Exists(s2));
  EXPECT_TRUE(Exists(s1));
  AssertCheckpointState(s1, {s2, s1});

  // The second helper.
  s2 = SaveAs(*save2, "s2");
  EXPECT_THAT(save2->last_checkpoints(), ElementsAre(s3, s2));
  EXPECT_TRUE(Exists(s1));   // Made by the first helper.
  EXPECT_FALSE(Exists(s3));  // Deleted by the first helper.
  EXPECT_TRUE(Exists(s2));
  AssertCheckpointState(s2, {s3, s2});
  s1 = SaveAs(*save2, "s1");
  EXPECT_THAT(save2->last_checkpoints(), ElementsAre(s2, s1));
  EXPECT_FALSE(Exists(s3));
  EXPECT_TRUE(Exists(s2));
  EXPECT_TRUE(Exists(s1));
  AssertCheckpointState(s1, {s2, s1});

  // The third helper, unaware of the earlier checkpoints.
  s2 = SaveAs(*save3, "s2");
  EXPECT_THAT(save3->last_checkpoints(), ElementsAre(s2));
  EXPECT_TRUE(Exists(s1));
  EXPECT_FALSE(Exists(s3));
  EXPECT_TRUE(Exists(s2));
  AssertCheckpointState(s2, {s2});  // s1's file exists, but this saver does not know it.
  s1 = SaveAs(*save3, "s1");
  EXPECT_THAT(save3->last_checkpoints(), ElementsAre(s2, s1));
  EXPECT_FALSE(Exists(s3));
  EXPECT_TRUE(Exists(s2));
  EXPECT_TRUE(Exists(s1));
  AssertCheckpointState(s1, {s2, s1});
}

// TensorFlow tests max_to_keep=None and 0; an int has no None, and 0 is TensorFlow's
// "keep all" too: nothing is tracked and nothing deleted.
TEST_F(MaxToKeepTest, testNoMaxToKeep) {
  auto save = MakeSaver(0);
  EXPECT_TRUE(save->last_checkpoints().empty());
  const std::string s1 = SaveAs(*save, "s1");
  EXPECT_TRUE(save->last_checkpoints().empty());
  EXPECT_TRUE(Exists(s1));
  const std::string s2 = SaveAs(*save, "s2");
  EXPECT_TRUE(save->last_checkpoints().empty());
  EXPECT_TRUE(Exists(s2));
  EXPECT_TRUE(Exists(s1));
}

// ---- KeepCheckpointEveryNHoursTest ----------------------------------------------------------

TEST(KeepCheckpointEveryNHoursTest, testNonSharded) {
  const std::string save_dir = NewDir();
  Graph graph;
  DefaultGraphScope as_default(graph);
  Variable v(Tensor::Vector<float>({10}), "v");
  Session session(&graph);
  session.Run(GlobalVariablesInitializer());
  FakeClock clock;
  SaverOptions options;
  options.max_to_keep = 2;
  options.keep_checkpoint_every_n_hours = 0.7 / 3600;  // Keep one every 0.7 s.
  options.clock = &clock;
  Saver save({v}, options);
  EXPECT_TRUE(save.last_checkpoints().empty());
  clock.Advance(1000000);  // s1 is old enough to keep.
  const std::string s1 = *save.Save(session, JoinPath(save_dir, "s1"));
  EXPECT_THAT(save.last_checkpoints(), ElementsAre(s1));
  const std::string s2 = *save.Save(session, JoinPath(save_dir, "s2"));
  EXPECT_THAT(save.last_checkpoints(), ElementsAre(s1, s2));
  // max_to_keep would delete s1, but s1 is older than 0.7 s: kept on disk.
  const std::string s3 = *save.Save(session, JoinPath(save_dir, "s3"));
  EXPECT_THAT(save.last_checkpoints(), ElementsAre(s2, s3));
  // s2 is too close in time to the kept s1: deleted.
  const std::string s4 = *save.Save(session, JoinPath(save_dir, "s4"));
  EXPECT_THAT(save.last_checkpoints(), ElementsAre(s3, s4));
  EXPECT_TRUE(Exists(s1));
  EXPECT_FALSE(Exists(s2));
  EXPECT_TRUE(Exists(s3));
  EXPECT_TRUE(Exists(s4));
}

// ---- CheckpointStateTest --------------------------------------------------------------------

// Runs in a fresh directory as the working directory, as TensorFlow's cases chdir.
class CheckpointStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char buffer[4096];
    ASSERT_NE(getcwd(buffer, sizeof buffer), nullptr);
    old_cwd_ = buffer;
    ASSERT_EQ(chdir(save_dir_.c_str()), 0);
  }
  void TearDown() override { ASSERT_EQ(chdir(old_cwd_.c_str()), 0); }

  std::string save_dir_ = NewDir();
  std::string old_cwd_;
};

TEST_F(CheckpointStateTest, testAbsPath) {
  const std::string abs_path = JoinPath(save_dir_, "model-0");
  CheckpointState ckpt = GenerateCheckpointState(save_dir_, abs_path, {});
  EXPECT_EQ(ckpt.model_checkpoint_path, abs_path);
  EXPECT_EQ(ckpt.model_checkpoint_path.front(), '/');
  ASSERT_EQ(ckpt.all_model_checkpoint_paths.size(), 1u);
  EXPECT_EQ(ckpt.all_model_checkpoint_paths.back(), abs_path);
}

TEST_F(CheckpointStateTest, testRelPath) {
  CheckpointState ckpt = GenerateCheckpointState("train", JoinPath("train", "model-0"), {});
  EXPECT_EQ(ckpt.model_checkpoint_path, "model-0");  // No "train" part.
  ASSERT_EQ(ckpt.all_model_checkpoint_paths.size(), 1u);
  EXPECT_EQ(ckpt.all_model_checkpoint_paths.back(), "model-0");
}

TEST_F(CheckpointStateTest, testAllModelCheckpointPaths) {
  const std::string abs_path = JoinPath(save_dir_, "model-0");
  for (const std::vector<std::string>& paths :
       {std::vector<std::string>{}, std::vector<std::string>{"model-2"}}) {
    CheckpointState ckpt = GenerateCheckpointState(save_dir_, abs_path, paths);
    EXPECT_EQ(ckpt.model_checkpoint_path, abs_path);
    // The newest is appended when the list does not end with it. (TensorFlow's assertion
    // compares with len(paths) after the call, which appended to that very list.)
    EXPECT_EQ(ckpt.all_model_checkpoint_paths.size(), paths.size() + 1);
    EXPECT_EQ(ckpt.all_model_checkpoint_paths.back(), abs_path);
  }
}

TEST_F(CheckpointStateTest, testUpdateCheckpointState) {
  DefaultFileSystem()->CreateDirectories("train");
  const std::string abs_path = JoinPath(save_dir_, "model-0");
  const std::string rel_path = JoinPath("train", "model-2");
  UpdateCheckpointStateFile("train", rel_path, {abs_path, rel_path});
  const std::optional<CheckpointState> ckpt = GetCheckpointState("train");
  ASSERT_TRUE(ckpt);
  EXPECT_EQ(ckpt->model_checkpoint_path, rel_path);
  ASSERT_EQ(ckpt->all_model_checkpoint_paths.size(), 2u);
  EXPECT_EQ(ckpt->all_model_checkpoint_paths.back(), rel_path);
  EXPECT_EQ(ckpt->all_model_checkpoint_paths.front(), abs_path);
}

TEST_F(CheckpointStateTest, testUpdateCheckpointStateSaveRelativePaths) {
  const std::string abs_path2 = JoinPath(save_dir_, "model-2");
  const std::string abs_path0 = JoinPath(save_dir_, "model-0");
  UpdateCheckpointStateFile(save_dir_, abs_path2, {"model-0", abs_path2}, "checkpoint",
                            /*save_relative_paths=*/true);
  // The file holds relative paths ...
  CheckpointState in_file =
      ParseCheckpointState(DefaultFileSystem()->ReadFile(JoinPath(save_dir_, "checkpoint")));
  EXPECT_EQ(in_file.model_checkpoint_path, "model-2");
  EXPECT_THAT(in_file.all_model_checkpoint_paths, ElementsAre("model-0", "model-2"));
  // ... and GetCheckpointState makes them absolute.
  const std::optional<CheckpointState> ckpt = GetCheckpointState(save_dir_);
  ASSERT_TRUE(ckpt);
  EXPECT_EQ(ckpt->model_checkpoint_path, abs_path2);
  EXPECT_THAT(ckpt->all_model_checkpoint_paths, ElementsAre(abs_path0, abs_path2));
}

TEST_F(CheckpointStateTest, testCheckPointStateFailsWhenIncomplete) {
  DefaultFileSystem()->WriteFileAtomically(JoinPath(save_dir_, "checkpoint"), "");
  EXPECT_THROW(GetCheckpointState(save_dir_), ValueError);
}

TEST_F(CheckpointStateTest, testCheckPointCompletesRelativePaths) {
  DefaultFileSystem()->WriteFileAtomically(JoinPath(save_dir_, "checkpoint"), R"(
        model_checkpoint_path: "./model.ckpt-687529"
        all_model_checkpoint_paths: "./model.ckpt-687500"
        all_model_checkpoint_paths: "./model.ckpt-687529"
        )");
  const std::optional<CheckpointState> ckpt = GetCheckpointState(save_dir_);
  ASSERT_TRUE(ckpt);
  EXPECT_EQ(ckpt->model_checkpoint_path, JoinPath(save_dir_, "./model.ckpt-687529"));
  EXPECT_THAT(ckpt->all_model_checkpoint_paths,
              ElementsAre(JoinPath(save_dir_, "./model.ckpt-687500"),
                          JoinPath(save_dir_, "./model.ckpt-687529")));
}

}  // namespace
}  // namespace mts
