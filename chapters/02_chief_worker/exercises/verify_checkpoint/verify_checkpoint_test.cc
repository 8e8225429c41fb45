// Tests of the checkpoint verifier exercise.
#include "chapters/02_chief_worker/exercises/verify_checkpoint/verify_checkpoint.h"

#include <cstdlib>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/02_chief_worker/checkpoint/checkpoint_file.h"
#include "src/platform/errors.h"
#include "tests/testing/expect_error.h"

namespace mts {
namespace {

using ::testing::HasSubstr;
using ::testing::Throws;

// A checkpoint of three tensors whose data lie back to back at the end of the file, in
// name order: a (12 bytes), b (16 bytes), c (two strings: 8 + 2 and 8 + 5 bytes).
class VerifyCheckpointTest : public ::testing::Test {
 protected:
  static constexpr size_t kSizeA = 12, kSizeB = 16, kSizeC = 23;

  VerifyCheckpointTest()
      : path_(JoinPath(std::getenv("TEST_TMPDIR"), "model.ckpt-7")),
        bytes_(SerializeCheckpoint({
            {"c", Tensor::Vector<std::string>({"hi", "there"})},
            {"a", Tensor::Vector<float>({1.0f, 2.0f, 3.0f})},
            {"b", Tensor::Vector<int64_t>({7, 8})},
        })) {}

  // Writes the checkpoint with byte `at` flipped (or none, for npos) and verifies it.
  CheckpointReport VerifyWithByteFlipped(size_t at = std::string::npos) {
    std::string bytes = bytes_;
    if (at != std::string::npos) bytes[at] = static_cast<char>(bytes[at] ^ 0xff);
    fs_.WriteFileAtomically(path_, bytes);
    return VerifyCheckpoint(fs_, path_);
  }
  size_t data_start() const { return bytes_.size() - kSizeA - kSizeB - kSizeC; }

  FileSystem& fs_ = *DefaultFileSystem();
  std::string path_;
  std::string bytes_;
};

// A sound checkpoint: every tensor listed, by name, with its dtype and shape, all ok.
TEST_F(VerifyCheckpointTest, SoundCheckpointReportsEveryTensorOk) {
  const CheckpointReport report = VerifyWithByteFlipped();
  EXPECT_EQ(report.path, path_);
  ASSERT_EQ(report.tensors.size(), 3u);
  EXPECT_EQ(report.tensors[0].name, "a");
  EXPECT_EQ(report.tensors[0].dtype, DataType::kFloat);
  EXPECT_EQ(report.tensors[0].shape, TensorShape({3}));
  EXPECT_EQ(report.tensors[1].name, "b");
  EXPECT_EQ(report.tensors[1].dtype, DataType::kInt64);
  EXPECT_EQ(report.tensors[2].name, "c");
  EXPECT_EQ(report.tensors[2].dtype, DataType::kString);
  EXPECT_EQ(report.tensors[2].shape, TensorShape({2}));
  for (const TensorReport& t : report.tensors) {
    EXPECT_TRUE(t.ok) << t.name;
    EXPECT_EQ(t.error, "") << t.name;
  }
  EXPECT_TRUE(report.ok());
}

// A damaged data block marks its tensor, with the reader's message, and spares the others.
TEST_F(VerifyCheckpointTest, DamagedDataIsReportedNotRaised) {
  const CheckpointReport report = VerifyWithByteFlipped(data_start() + kSizeA + 3);  // In b.
  ASSERT_EQ(report.tensors.size(), 3u);
  EXPECT_TRUE(report.tensors[0].ok);
  EXPECT_FALSE(report.tensors[1].ok);
  EXPECT_NE(report.tensors[1].error.find("tensor 'b'"), std::string::npos)
      << report.tensors[1].error;
  EXPECT_NE(report.tensors[1].error.find("checksum"), std::string::npos);
  EXPECT_TRUE(report.tensors[2].ok);
  EXPECT_FALSE(report.ok());
}

// Damage in the header or index leaves nothing to report on: DataLossError naming the file.
TEST_F(VerifyCheckpointTest, DamagedIndexRaisesDataLoss) {
  EXPECT_THAT(
      [&] {
        VerifyWithByteFlipped(40);  // Inside the first index entry.
      },
      Throws<DataLossError>(HasMessage(HasSubstr(path_))));
}

// A truncated file is found out by the header's file size.
TEST_F(VerifyCheckpointTest, TruncatedFileRaisesDataLoss) {
  fs_.WriteFileAtomically(path_, bytes_.substr(0, bytes_.size() - 1));
  EXPECT_THROW(VerifyCheckpoint(fs_, path_), DataLossError);
}

// No file: NotFoundError.
TEST_F(VerifyCheckpointTest, MissingFileRaisesNotFound) {
  EXPECT_THROW(VerifyCheckpoint(fs_, path_ + ".gone"), NotFoundError);
}

// Every single-byte corruption is found: before the data section it raises; inside it,
// exactly the tensor owning the byte is reported bad.
TEST_F(VerifyCheckpointTest, EverySingleByteCorruptionIsFound) {
  const size_t ends[] = {data_start() + kSizeA, data_start() + kSizeA + kSizeB, bytes_.size()};
  for (size_t at = 0; at < bytes_.size(); ++at) {
    SCOPED_TRACE("byte " + std::to_string(at));
    if (at < data_start()) {
      EXPECT_THROW(VerifyWithByteFlipped(at), DataLossError);
      continue;
    }
    const CheckpointReport report = VerifyWithByteFlipped(at);
    ASSERT_EQ(report.tensors.size(), 3u);
    const size_t owner = at < ends[0] ? 0 : at < ends[1] ? 1 : 2;
    for (size_t i = 0; i < 3; ++i) EXPECT_EQ(report.tensors[i].ok, i != owner) << i;
  }
}

// A file that holds what the model expects is ok; a stored tensor nobody expects (c) is
// judged by its data alone.
TEST_F(VerifyCheckpointTest, MatchingModelIsOk) {
  fs_.WriteFileAtomically(path_, bytes_);
  const CheckpointReport report = VerifyCheckpoint(
      fs_, path_,
      {{"b", DataType::kInt64, TensorShape({2})}, {"a", DataType::kFloat, TensorShape({3})}});
  ASSERT_EQ(report.tensors.size(), 3u);
  for (const TensorReport& t : report.tensors) EXPECT_TRUE(t.ok) << t.name << ": " << t.error;
  EXPECT_TRUE(report.missing.empty());
  EXPECT_TRUE(report.ok());
}

// Expected names the file lacks are listed, sorted; the stored tensors are still checked.
TEST_F(VerifyCheckpointTest, MissingNamesAreListed) {
  fs_.WriteFileAtomically(path_, bytes_);
  const CheckpointReport report = VerifyCheckpoint(fs_, path_,
                                                   {{"w", DataType::kFloat, TensorShape({3})},
                                                    {"a", DataType::kFloat, TensorShape({3})},
                                                    {"v", DataType::kFloat, TensorShape({})}});
  EXPECT_EQ(report.missing, (std::vector<std::string>{"v", "w"}));
  ASSERT_EQ(report.tensors.size(), 3u);
  for (const TensorReport& t : report.tensors) EXPECT_TRUE(t.ok) << t.name;
  EXPECT_FALSE(report.ok());
}

// A dtype or shape that differs from the model's marks that tensor, naming both.
TEST_F(VerifyCheckpointTest, MismatchedDtypeOrShapeIsReported) {
  fs_.WriteFileAtomically(path_, bytes_);
  const CheckpointReport report = VerifyCheckpoint(
      fs_, path_,
      {{"a", DataType::kDouble, TensorShape({3})}, {"b", DataType::kInt64, TensorShape({3})}});
  ASSERT_EQ(report.tensors.size(), 3u);
  EXPECT_FALSE(report.tensors[0].ok);
  EXPECT_THAT(report.tensors[0].error, HasSubstr("float64"));
  EXPECT_THAT(report.tensors[0].error, HasSubstr("float32"));
  EXPECT_FALSE(report.tensors[1].ok);
  EXPECT_THAT(report.tensors[1].error, HasSubstr("[3]"));
  EXPECT_THAT(report.tensors[1].error, HasSubstr("[2]"));
  EXPECT_TRUE(report.tensors[2].ok);
  EXPECT_TRUE(report.missing.empty());
  EXPECT_FALSE(report.ok());
}

// A tensor that is both damaged and of the wrong dtype gets both problems in its report.
TEST_F(VerifyCheckpointTest, DamageAndMismatchAreBothReported) {
  std::string bytes = bytes_;
  bytes[data_start() + 1] = static_cast<char>(bytes[data_start() + 1] ^ 0xff);  // In a.
  fs_.WriteFileAtomically(path_, bytes);
  const CheckpointReport report =
      VerifyCheckpoint(fs_, path_, {{"a", DataType::kDouble, TensorShape({3})}});
  ASSERT_EQ(report.tensors.size(), 3u);
  EXPECT_FALSE(report.tensors[0].ok);
  EXPECT_THAT(report.tensors[0].error, HasSubstr("checksum"));
  EXPECT_THAT(report.tensors[0].error, HasSubstr("float64"));
  EXPECT_TRUE(report.tensors[1].ok);
}

}  // namespace
}  // namespace mts
