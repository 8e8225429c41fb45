// Tests of checkpoint_file.h: round trips of every dtype, the layout of the header, and the
// promise that any damage (every single-byte corruption, every truncation) is DataLossError.
#include "src/02_chief_worker/checkpoint/checkpoint_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/platform/errors.h"
#include "src/platform/crc32c.h"
#include "tests/testing/new_dir.h"

namespace mts {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::ThrowsMessage;

class CheckpointFileTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = NewDir(); }

  std::string Path(const std::string& name) const { return JoinPath(dir_, name); }

  // Writes raw bytes (not atomically: these are deliberately damaged files).
  void WriteRaw(const std::string& path, const std::string& bytes) {
    auto file = fs_->NewWritableFile(path);
    file->Append(bytes);
    file->Close();
  }

  // Opens the checkpoint and reads every tensor in it, as a restore would.
  void ReadEverything(const std::string& path) {
    CheckpointReader reader(*fs_, path);
    for (const CheckpointTensorInfo& info : reader.tensors()) reader.Read(info.name);
  }

  // A small checkpoint touching every dtype, an empty tensor and strings.
  static std::vector<NamedTensor> SmallCheckpoint() {
    return {
        {"w", Tensor::Matrix<float>({{1.5f, -2}, {3, 4}})},
        {"global_step", Tensor::Scalar<int64_t>(42)},
        {"d", Tensor::Vector<double>({0.25})},
        {"i", Tensor::Vector<int32_t>({-7, 8})},
        {"flags", Tensor::Vector<bool>({true, false})},
        {"names", Tensor::Vector<std::string>({"ab", ""})},
        {"empty", Tensor::Zeros(DataType::kFloat, {0})},
    };
  }

  FileSystem* fs_ = DefaultFileSystem();
  std::string dir_;
};

// Every dtype, with scalars, matrices, empty tensors, and strings holding NULs, comes back
// exactly as written.
TEST_F(CheckpointFileTest, RoundTripsEveryDtype) {
  const std::vector<NamedTensor> tensors = {
      {"f32", Tensor::Matrix<float>({{1.5f, -0.0f, 3e38f}, {1e-45f, 7, 8}})},
      {"f64", Tensor::Vector<double>({3.141592653589793, -1e308})},
      {"i32", Tensor::Scalar<int32_t>(-2147483647 - 1)},
      {"i64", Tensor::Vector<int64_t>({INT64_MAX, -1, 0})},
      {"bool", Tensor::Matrix<bool>({{true}, {false}, {true}})},
      {"str", Tensor::Vector<std::string>({"", "hello", std::string("a\0b", 3),
                                           std::string(1000, 'x')})},
      {"str_scalar", Tensor::Scalar<std::string>("only")},
      {"empty_f32", Tensor::Zeros(DataType::kFloat, {0})},
      {"empty_2d", Tensor::Zeros(DataType::kInt64, {3, 0})},
      {"empty_str", Tensor::Zeros(DataType::kString, {0, 2})},
      {"empty_bool", Tensor::Zeros(DataType::kBool, {0})},
  };
  WriteCheckpoint(*fs_, Path("model.ckpt-1"), tensors);

  CheckpointReader reader(*fs_, Path("model.ckpt-1"));
  ASSERT_EQ(reader.tensors().size(), tensors.size());
  for (const NamedTensor& t : tensors) {
    SCOPED_TRACE(t.first);
    EXPECT_TRUE(TensorEqual(reader.Read(t.first), t.second));
  }
}

// The index lists names sorted, with each tensor's dtype and shape, before any data is read.
TEST_F(CheckpointFileTest, IndexListsNamesDtypesAndShapesSortedByName) {
  WriteCheckpoint(*fs_, Path("ckpt"),
                  {{"z", Tensor::Zeros(DataType::kDouble, {2, 3})},
                   {"a", Tensor::Scalar<int32_t>(1)},
                   {"m/n", Tensor::Vector<std::string>({"x"})}});
  CheckpointReader reader(*fs_, Path("ckpt"));
  std::vector<std::string> names;
  for (const auto& info : reader.tensors()) names.push_back(info.name);
  EXPECT_THAT(names, ElementsAre("a", "m/n", "z"));
  EXPECT_EQ(reader.Info("z").dtype, DataType::kDouble);
  EXPECT_EQ(reader.Info("z").shape, TensorShape({2, 3}));
  EXPECT_EQ(reader.Info("a").shape, TensorShape({}));
  EXPECT_EQ(reader.Info("m/n").dtype, DataType::kString);
  EXPECT_TRUE(reader.Has("a"));
  EXPECT_FALSE(reader.Has("b"));
}

// A checkpoint may hold no tensors at all.
TEST_F(CheckpointFileTest, EmptyCheckpointHasNoTensors) {
  WriteCheckpoint(*fs_, Path("empty"), {});
  EXPECT_TRUE(CheckpointReader(*fs_, Path("empty")).tensors().empty());
}

// The header is the documented layout: magic, version, count, index size, file size.
TEST_F(CheckpointFileTest, HeaderFollowsTheDocumentedLayout) {
  const std::string bytes = SerializeCheckpoint({{"a", Tensor::Scalar<float>(1)}});
  ASSERT_GE(bytes.size(), 36u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("MTSCKPT\0", 8));
  auto u32 = [&](size_t at) {
    uint32_t v;
    std::memcpy(&v, bytes.data() + at, 4);
    return v;
  };
  auto u64 = [&](size_t at) {
    uint64_t v;
    std::memcpy(&v, bytes.data() + at, 8);
    return v;
  };
  EXPECT_EQ(u32(8), 1u);   // version
  EXPECT_EQ(u32(12), 1u);  // one tensor
  // Entry: name length 4 + "a" 1 + dtype 1 + rank 1 + offset 8 + length 8 + crc 4 = 27.
  EXPECT_EQ(u64(16), 27u);
  EXPECT_EQ(u64(24), bytes.size());
  EXPECT_EQ(bytes.size(), 32u + 27u + 4u + 4u);  // header, index, index crc, one float
  EXPECT_EQ(u32(32), 1u);                        // name length
  EXPECT_EQ(bytes[36], 'a');
  EXPECT_EQ(bytes[37], 1);  // float32 is TensorFlow's DT_FLOAT = 1
  EXPECT_EQ(u32(32 + 27), MaskCrc(Crc32c(bytes.data(), 32 + 27)));
}

// Writing goes through a temporary name and leaves nothing else behind.
TEST_F(CheckpointFileTest, WriteLeavesOnlyTheCheckpoint) {
  WriteCheckpoint(*fs_, Path("model.ckpt-5"), SmallCheckpoint());
  EXPECT_THAT(fs_->ListDirectory(dir_), ElementsAre("model.ckpt-5"));
}

// The writer refuses what it could not read back unambiguously.
TEST_F(CheckpointFileTest, WriteRejectsEmptyRepeatedNamesAndUninitializedTensors) {
  EXPECT_THROW(WriteCheckpoint(*fs_, Path("c"), {{"", Tensor::Scalar<float>(1)}}),
               InvalidArgumentError);
  EXPECT_THROW(WriteCheckpoint(*fs_, Path("c"),
                               {{"a", Tensor::Scalar<float>(1)}, {"a", Tensor::Scalar<float>(2)}}),
               InvalidArgumentError);
  EXPECT_THROW(WriteCheckpoint(*fs_, Path("c"), {{"a", Tensor()}}), InvalidArgumentError);
  EXPECT_FALSE(fs_->Exists(Path("c")));
}

// Writing into a missing directory is NotFoundError, as the file system reports it.
TEST_F(CheckpointFileTest, WriteIntoMissingDirectoryIsNotFound) {
  EXPECT_THROW(WriteCheckpoint(*fs_, Path("no/such/dir/ckpt"), SmallCheckpoint()), NotFoundError);
}

// A missing file is NotFoundError; a missing tensor is NotFoundError naming it.
TEST_F(CheckpointFileTest, MissingFileAndMissingTensorAreNotFound) {
  EXPECT_THROW(CheckpointReader(*fs_, Path("absent")), NotFoundError);
  WriteCheckpoint(*fs_, Path("c"), SmallCheckpoint());
  CheckpointReader reader(*fs_, Path("c"));
  EXPECT_THAT([&] { reader.Read("nope"); }, ThrowsMessage<NotFoundError>(HasSubstr("'nope'")));
}

// A file that is not a checkpoint at all says so.
TEST_F(CheckpointFileTest, TextFileIsDataLossNamingTheMagic) {
  WriteRaw(Path("checkpoint"), "model_checkpoint_path: \"model.ckpt-1\"\n");
  EXPECT_THAT(
      [&] { CheckpointReader(*fs_, Path("checkpoint")); },
      ThrowsMessage<DataLossError>(AllOf(HasSubstr(Path("checkpoint")), HasSubstr("magic"))));
}

// Flipping any one byte of a small checkpoint, anywhere, is detected: all bits of it, and
// its lowest bit alone. Damage is never a crash and never a wrong value.
TEST_F(CheckpointFileTest, EverySingleByteCorruptionIsDataLoss) {
  const std::string good = SerializeCheckpoint(SmallCheckpoint());
  const std::string path = Path("ckpt");
  for (const unsigned char mask : {0xFF, 0x01}) {
    for (size_t i = 0; i < good.size(); ++i) {
      std::string bad = good;
      bad[i] = static_cast<char>(bad[i] ^ mask);
      WriteRaw(path, bad);
      EXPECT_THAT([&] { ReadEverything(path); }, ThrowsMessage<DataLossError>(HasSubstr(path)))
          << "flipping byte " << i << " with mask " << int{mask};
    }
  }
}

// Cutting the file at any length (including empty) is detected before any tensor is read.
TEST_F(CheckpointFileTest, EveryTruncationIsDataLoss) {
  const std::string good = SerializeCheckpoint(SmallCheckpoint());
  const std::string path = Path("ckpt");
  for (size_t length = 0; length < good.size(); ++length) {
    WriteRaw(path, good.substr(0, length));
    EXPECT_THROW(CheckpointReader(*fs_, path), DataLossError) << "length " << length;
  }
  WriteRaw(path, good);
  EXPECT_NO_THROW(ReadEverything(path));
}

// Bytes appended to a checkpoint are damage too.
TEST_F(CheckpointFileTest, AppendedBytesAreDataLoss) {
  WriteRaw(Path("ckpt"), SerializeCheckpoint(SmallCheckpoint()) + "x");
  EXPECT_THROW(CheckpointReader(*fs_, Path("ckpt")), DataLossError);
}

// Damage in one tensor's data names that tensor, and the other tensors still read.
TEST_F(CheckpointFileTest, DamagedDataNamesTheTensor) {
  const std::string good = SerializeCheckpoint({{"a", Tensor::Scalar<int64_t>(1)},
                                                {"w", Tensor::Vector<float>({1, 2, 3})}});
  std::string bad = good;
  bad[bad.size() - 1] ^= 0x40;  // The last byte belongs to the last tensor, "w".
  WriteRaw(Path("ckpt"), bad);
  CheckpointReader reader(*fs_, Path("ckpt"));
  EXPECT_TRUE(TensorEqual(reader.Read("a"), Tensor::Scalar<int64_t>(1)));
  EXPECT_THAT([&] { reader.Read("w"); },
              ThrowsMessage<DataLossError>(AllOf(HasSubstr(Path("ckpt")), HasSubstr("'w'"))));
}

// A crafted file whose checksums are right but whose index asks for absurd sizes is
// rejected before anything is allocated: the checks do not rely on the CRC.
TEST_F(CheckpointFileTest, AbsurdSizesWithValidChecksumsAreDataLoss) {
  const std::string good = SerializeCheckpoint({{"a", Tensor::Vector<float>({1, 2})}});
  // Rewrites a field in the header or index and fixes the header checksum.
  auto forge = [&](size_t at, uint64_t value, size_t width) {
    std::string bytes = good;
    std::memcpy(&bytes[at], &value, width);
    uint64_t index_size;
    std::memcpy(&index_size, bytes.data() + 16, 8);
    const uint32_t crc = MaskCrc(Crc32c(bytes.data(), 32 + index_size));
    std::memcpy(&bytes[32 + index_size], &crc, 4);
    return bytes;
  };
  const size_t entry = 32;
  const size_t dim0 = entry + 4 + 1 + 1 + 1;  // After name length, "a", dtype, rank.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"huge count", forge(12, 0xFFFFFFFFu, 4)},
      {"huge dimension", forge(dim0, uint64_t{1} << 40, 8)},
      {"negative dimension", forge(dim0, static_cast<uint64_t>(-2), 8)},
      {"huge offset", forge(dim0 + 8, uint64_t{1} << 62, 8)},
      {"huge length", forge(dim0 + 16, ~uint64_t{0}, 8)},
      {"unknown dtype", forge(entry + 5, 200, 1)},
      {"huge rank", forge(entry + 6, 255, 1)},
      {"huge name", forge(entry, 0xFFFFFFF0u, 4)},
      {"other version", forge(8, 2, 4)},
  };
  for (const auto& [what, bytes] : cases) {
    WriteRaw(Path("ckpt"), bytes);
    EXPECT_THROW(ReadEverything(Path("ckpt")), DataLossError) << what;
  }
}

// A file that is not a checkpoint is refused by its first bytes, however large it is: a
// sparse file of 64 GiB of zeros (never read whole) and a file whose header claims another
// size than it has.
TEST_F(CheckpointFileTest, AFileIsJudgedByItsHeaderBeforeItIsReadWhole) {
  WriteRaw(Path("zeros"), "");
  ASSERT_EQ(::truncate(Path("zeros").c_str(), off_t{1} << 36), 0);
  EXPECT_THAT([&] { CheckpointReader(*fs_, Path("zeros")); },
              ThrowsMessage<DataLossError>(HasSubstr("does not start with the mts checkpoint")));
  std::string bytes = SerializeCheckpoint(SmallCheckpoint());
  WriteRaw(Path("grown"), bytes + std::string(1000, 'x'));
  EXPECT_THAT([&] { CheckpointReader(*fs_, Path("grown")); },
              ThrowsMessage<DataLossError>(HasSubstr("but the file has")));
}

// A FIFO or a device is damage, not a hang: the reader refuses it without reading.
TEST_F(CheckpointFileTest, AFifoOrADeviceIsDataLoss) {
  ASSERT_EQ(::mkfifo(Path("fifo").c_str(), 0644), 0);
  ASSERT_EQ(::symlink("/dev/zero", Path("zero").c_str()), 0);
  EXPECT_THAT([&] { CheckpointReader(*fs_, Path("fifo")); },
              ThrowsMessage<DataLossError>(HasSubstr("is a FIFO, not a regular file")));
  EXPECT_THAT([&] { CheckpointReader(*fs_, Path("zero")); },
              ThrowsMessage<DataLossError>(HasSubstr("is a character device")));
}

// FindCheckpointFiles: "<prefix>-<step>" files that start with the magic, oldest step first;
// temporaries, the state file, other files and a FIFO named like a checkpoint are not.
TEST_F(CheckpointFileTest, FindCheckpointFilesListsCheckpointsByStep) {
  WriteCheckpoint(*fs_, Path("model.ckpt-10"), SmallCheckpoint());
  WriteCheckpoint(*fs_, Path("model.ckpt-9"), SmallCheckpoint());
  WriteCheckpoint(*fs_, Path("other-100"), SmallCheckpoint());
  WriteRaw(Path("model.ckpt-11.tmp.5.0"), SerializeCheckpoint(SmallCheckpoint()));
  WriteRaw(Path("notes-12"), "not a checkpoint");
  WriteRaw(Path("checkpoint"), "model_checkpoint_path: \"model.ckpt-10\"");
  ASSERT_EQ(::mkfifo(Path("model.ckpt-13").c_str(), 0644), 0);
  EXPECT_THAT(FindCheckpointFiles(*fs_, dir_),
              ElementsAre(Path("model.ckpt-9"), Path("model.ckpt-10"), Path("other-100")));
  EXPECT_THAT(FindCheckpointFiles(*fs_, Path("missing")), IsEmpty());
}

}  // namespace
}  // namespace mts
