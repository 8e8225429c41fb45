// Tests of tools/inspect_checkpoint.h: the listing, one tensor's values, all values, a
// directory's newest checkpoint, and every way a checkpoint can be missing or damaged, each
// reported with the file named and exit status 1.
#include "tools/inspect_checkpoint.h"

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/tensor.h"
#include "src/02_chief_worker/checkpoint/checkpoint_file.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/platform/file_system.h"

namespace mts {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

class InspectCheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = JoinPath(JoinPath(std::getenv("TEST_TMPDIR"), "inspect_checkpoint_test"),
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs_->CreateDirectories(dir_);
  }

  // A three-tensor checkpoint "<dir>/model.ckpt-<step>"; w's data is the file's last bytes.
  std::string Save(int64_t step) {
    const std::string path = JoinPath(dir_, "model.ckpt-" + std::to_string(step));
    WriteCheckpoint(*fs_, path,
                    {{"w", Tensor::FromValues<float>(TensorShape({2, 2}), {1.5f, -2, 0.25f, 4})},
                     {"b", Tensor::FromValues<float>(TensorShape({}), {0.5f})},
                     {"global_step", Tensor::FromValues<int64_t>(TensorShape({}), {step})}});
    return path;
  }

  // Flips one bit of the file at `offset` from its end (1 is the last byte).
  void FlipFromEnd(const std::string& path, size_t offset) {
    std::string bytes = fs_->ReadFile(path);
    bytes[bytes.size() - offset] ^= 0x01;
    fs_->WriteFileAtomically(path, bytes);
  }

  int Inspect(const std::string& path, InspectCheckpointOptions options = {}) {
    out_.str("");
    err_.str("");
    return InspectCheckpoint(path, options, out_, err_);
  }

  FileSystem* fs_ = DefaultFileSystem();
  std::string dir_;
  std::ostringstream out_;
  std::ostringstream err_;
};

// Without flags: one line per tensor in TensorFlow's style, sorted by name, and the verdict.
TEST_F(InspectCheckpointTest, ListsEveryTensorAndSaysEveryChecksumHolds) {
  const std::string path = Save(7);
  EXPECT_EQ(Inspect(path), 0);
  EXPECT_EQ(out_.str(), "Checkpoint " + path + ": 3 tensors, " +
                            std::to_string(fs_->FileSize(path)) + " bytes\n" +
                            "b (DT_FLOAT) []\n"
                            "global_step (DT_INT64) []\n"
                            "w (DT_FLOAT) [2,2]\n"
                            "Every checksum holds: the header and index, and the data of all 3 "
                            "tensors.\n");
  EXPECT_THAT(err_.str(), IsEmpty());
}

// --tensor_name prints that tensor's values in numpy's layout instead of the list.
TEST_F(InspectCheckpointTest, TensorNamePrintsThatTensorsValues) {
  const std::string path = Save(7);
  InspectCheckpointOptions options;
  options.tensor_name = "w";
  EXPECT_EQ(Inspect(path, options), 0);
  EXPECT_THAT(out_.str(), HasSubstr("\ntensor_name:  w\n[[1.5 -2]\n [0.25 4]]\nEvery checksum"));
  EXPECT_THAT(out_.str(), ::testing::Not(HasSubstr("(DT_FLOAT)")));
}

// --all_tensors prints every tensor's name and values.
TEST_F(InspectCheckpointTest, AllTensorsPrintsEveryValue) {
  const std::string path = Save(7);
  InspectCheckpointOptions options;
  options.all_tensors = true;
  EXPECT_EQ(Inspect(path, options), 0);
  EXPECT_THAT(out_.str(), HasSubstr("tensor_name:  b\n0.5\n"
                                    "tensor_name:  global_step\n7\n"
                                    "tensor_name:  w\n[[1.5 -2]\n [0.25 4]]\n"));
}

// A directory means its newest checkpoint, as the state file names it.
TEST_F(InspectCheckpointTest, ADirectoryMeansTheCheckpointItsStateFileNames) {
  Save(5);
  const std::string newest = Save(10);
  UpdateCheckpointStateFile(dir_, newest, {JoinPath(dir_, "model.ckpt-5")});
  EXPECT_EQ(Inspect(dir_), 0);
  EXPECT_THAT(out_.str(), HasSubstr("Checkpoint " + newest + " (the newest in " + dir_ + ")"));
}

// With no usable state file, the newest checkpoint file by step, as a chief would restore.
TEST_F(InspectCheckpointTest, ADirectoryWithoutAStateFileMeansItsNewestFile) {
  Save(5);
  const std::string newest = Save(10);
  EXPECT_EQ(Inspect(dir_), 0);
  EXPECT_THAT(out_.str(), HasSubstr("Checkpoint " + newest + " (the newest checkpoint file in "));
}

// A tensor whose data fails its checksum is marked; the others are still checked; status 1.
TEST_F(InspectCheckpointTest, DamagedTensorDataIsMarkedAndTheRestStillChecked) {
  const std::string path = Save(7);
  FlipFromEnd(path, 1);  // The last byte of w's data.
  EXPECT_EQ(Inspect(path), 1);
  EXPECT_THAT(out_.str(), HasSubstr("b (DT_FLOAT) []\n"));
  EXPECT_THAT(out_.str(), HasSubstr("w (DT_FLOAT) [2,2]  <- DAMAGED\n"));
  EXPECT_THAT(out_.str(),
              HasSubstr("DAMAGED: the data of 1 of 3 tensors fails its checksum: w."));
  EXPECT_THAT(err_.str(), HasSubstr(path));
  EXPECT_THAT(err_.str(), HasSubstr("tensor 'w'"));

  InspectCheckpointOptions options;
  options.tensor_name = "w";
  EXPECT_EQ(Inspect(path, options), 1);
  EXPECT_THAT(out_.str(), HasSubstr("tensor_name:  w\n<damaged: fails its checksum>\n"));
}

// Damage to the header and index leaves no list to trust: only the error, naming the file.
TEST_F(InspectCheckpointTest, DamagedIndexOrTruncatedFileIsReportedNamingTheFile) {
  const std::string path = Save(7);
  std::string bytes = fs_->ReadFile(path);
  bytes[40] ^= 0x01;  // Inside the index.
  fs_->WriteFileAtomically(path, bytes);
  EXPECT_EQ(Inspect(path), 1);
  EXPECT_THAT(out_.str(), IsEmpty());
  EXPECT_THAT(err_.str(), HasSubstr("inspect_checkpoint: Checkpoint file " + path));
  EXPECT_THAT(err_.str(), HasSubstr("fail their checksum"));

  fs_->WriteFileAtomically(path, fs_->ReadFile(Save(7)).substr(0, 50));
  EXPECT_EQ(Inspect(path), 1);
  EXPECT_THAT(err_.str(), HasSubstr("corrupt or truncated"));
}

// A missing file, an empty directory, an unknown tensor: each an error that says what.
TEST_F(InspectCheckpointTest, NothingToInspectIsAnErrorThatSaysWhat) {
  EXPECT_EQ(Inspect(JoinPath(dir_, "no_such_file")), 1);
  EXPECT_THAT(err_.str(), HasSubstr(JoinPath(dir_, "no_such_file")));

  EXPECT_EQ(Inspect(dir_), 1);
  EXPECT_THAT(err_.str(), HasSubstr("no checkpoint in directory " + dir_));

  InspectCheckpointOptions options;
  options.tensor_name = "v";
  EXPECT_EQ(Inspect(Save(7), options), 1);
  EXPECT_THAT(err_.str(), HasSubstr("no tensor named 'v' in " + JoinPath(dir_, "model.ckpt-7") +
                                    "; it holds: b, global_step, w"));
}

}  // namespace
}  // namespace mts
