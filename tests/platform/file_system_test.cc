// Tests of file_system.h: the POSIX file system in Bazel's per-test scratch directory
// (TEST_TMPDIR), and the path helpers.
#include "src/platform/file_system.h"

#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/platform/errors.h"
#include "tests/testing/expect_error.h"
#include "tests/testing/new_dir.h"

namespace mts {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Property;
using ::testing::Throws;
using ::testing::ThrowsMessage;

class FileSystemTest : public ::testing::Test {
 protected:
  // A fresh, empty directory per test, named after the test.
  void SetUp() override {
    dir_ = NewDir();
    ASSERT_THAT(fs_->ListDirectory(dir_), IsEmpty());
  }

  std::string Path(const std::string& name) const { return JoinPath(dir_, name); }

  FileSystem* fs_ = DefaultFileSystem();
  std::string dir_;
};

// An atomic write creates the file, and a second one replaces its contents entirely.
TEST_F(FileSystemTest, WriteFileAtomicallyCreatesAndReplacesContent) {
  fs_->WriteFileAtomically(Path("checkpoint"), "a long first version of the contents");
  EXPECT_EQ(fs_->ReadFile(Path("checkpoint")), "a long first version of the contents");
  fs_->WriteFileAtomically(Path("checkpoint"), "short");
  EXPECT_EQ(fs_->ReadFile(Path("checkpoint")), "short");
}

// The temporary file an atomic write goes through is renamed away: nothing else is left.
TEST_F(FileSystemTest, WriteFileAtomicallyLeavesNoTemporaryFiles) {
  for (int i = 0; i < 3; ++i) fs_->WriteFileAtomically(Path("checkpoint"), std::to_string(i));
  EXPECT_THAT(fs_->ListDirectory(dir_), ElementsAre("checkpoint"));
}

// A failed atomic write (no such directory) throws, names the file, and leaves nothing.
TEST_F(FileSystemTest, WriteFileAtomicallyIntoAMissingDirectoryThrowsNotFound) {
  EXPECT_THAT([&] { fs_->WriteFileAtomically(Path("missing/checkpoint"), "x"); },
              ThrowsMessage<NotFoundError>(HasSubstr(Path("missing/checkpoint"))));
  EXPECT_THAT(fs_->ListDirectory(dir_), IsEmpty());
}

// Threads racing to replace one file leave exactly one writer's contents, and no temporaries.
TEST_F(FileSystemTest, ConcurrentAtomicWritesLeaveOneWholeVersion) {
  constexpr int kWriters = 8;
  std::vector<std::thread> writers;
  for (int i = 0; i < kWriters; ++i) {
    writers.emplace_back([&, i] {
      fs_->WriteFileAtomically(Path("state"), std::string(1000, static_cast<char>('a' + i)));
    });
  }
  for (std::thread& writer : writers) writer.join();
  const std::string contents = fs_->ReadFile(Path("state"));
  ASSERT_EQ(contents.size(), 1000u);
  EXPECT_EQ(contents, std::string(1000, contents[0]));
  EXPECT_THAT(fs_->ListDirectory(dir_), ElementsAre("state"));
}

// Reading returns the bytes exactly, embedded zero bytes included.
TEST_F(FileSystemTest, ReadFileReturnsBinaryContents) {
  const std::string binary("a\0b\xff\n", 5);
  fs_->WriteFileAtomically(Path("binary"), binary);
  EXPECT_EQ(fs_->ReadFile(Path("binary")), binary);
  EXPECT_EQ(fs_->FileSize(Path("binary")), 5u);
}

// Reading a missing file raises NotFoundError, and the message names the file.
TEST_F(FileSystemTest, ReadFileOfAMissingFileThrowsNotFoundNamingIt) {
  EXPECT_THAT(
      [&] { fs_->ReadFile(Path("no_such_file")); },
      Throws<NotFoundError>(AllOf(Property(&std::exception::what, HasSubstr(Path("no_such_file"))),
                                  HasCode(ErrorCode::kNotFound))));
}

// Every call on a missing path raises NotFoundError.
TEST_F(FileSystemTest, MissingPathsThrowNotFound) {
  EXPECT_THROW(fs_->FileSize(Path("gone")), NotFoundError);
  EXPECT_THROW(fs_->DeleteFile(Path("gone")), NotFoundError);
  EXPECT_THROW(fs_->RenameFile(Path("gone"), Path("other")), NotFoundError);
  EXPECT_THROW(fs_->ListDirectory(Path("gone")), NotFoundError);
}

// ListDirectory gives names, not paths, sorted bytewise, files and directories alike.
TEST_F(FileSystemTest, ListDirectoryIsSorted) {
  for (const char* name : {"model.ckpt-20.index", "checkpoint", "model.ckpt-100.index", "B"}) {
    fs_->WriteFileAtomically(Path(name), "");
  }
  fs_->CreateDirectories(Path("eval"));
  EXPECT_THAT(fs_->ListDirectory(dir_), ElementsAre("B", "checkpoint", "eval",
                                                    "model.ckpt-100.index", "model.ckpt-20.index"));
}

// Exists is true for files and directories and false (never an exception) otherwise.
TEST_F(FileSystemTest, ExistsForFilesAndDirectories) {
  fs_->WriteFileAtomically(Path("file"), "x");
  EXPECT_TRUE(fs_->Exists(Path("file")));
  EXPECT_TRUE(fs_->Exists(dir_));
  EXPECT_FALSE(fs_->Exists(Path("nothing")));
  EXPECT_FALSE(fs_->Exists(Path("nothing/below")));
}

// DeleteFile removes a file; RenameFile moves one over an existing target.
TEST_F(FileSystemTest, DeleteAndRename) {
  fs_->WriteFileAtomically(Path("a"), "from a");
  fs_->WriteFileAtomically(Path("b"), "from b");
  fs_->RenameFile(Path("a"), Path("b"));
  EXPECT_EQ(fs_->ReadFile(Path("b")), "from a");
  EXPECT_FALSE(fs_->Exists(Path("a")));
  fs_->DeleteFile(Path("b"));
  EXPECT_THAT(fs_->ListDirectory(dir_), IsEmpty());
}

// CreateDirectories makes every missing parent, and is harmless when the directory exists.
TEST_F(FileSystemTest, CreateDirectoriesMakesParentsAndIsIdempotent) {
  fs_->CreateDirectories(Path("a/b/c"));
  fs_->CreateDirectories(Path("a/b/c"));
  fs_->CreateDirectories(Path("a/b/"));
  EXPECT_THAT(fs_->ListDirectory(Path("a/b")), ElementsAre("c"));
}

// A file in the way of a directory to create is a FailedPreconditionError naming it.
TEST_F(FileSystemTest, CreateDirectoriesThroughAFileFails) {
  fs_->WriteFileAtomically(Path("file"), "");
  EXPECT_THAT([&] { fs_->CreateDirectories(Path("file/sub")); },
              ThrowsMessage<FailedPreconditionError>(HasSubstr(Path("file"))));
  EXPECT_THROW(fs_->CreateDirectories(Path("file")), FailedPreconditionError);
}

// GetMatchingPaths expands a glob into sorted full paths; no match is an empty list.
TEST_F(FileSystemTest, GetMatchingPathsExpandsAGlob) {
  for (const char* name : {"model.ckpt-200.index", "model.ckpt-100.index",
                           "model.ckpt-100.data-00000-of-00001", "checkpoint"}) {
    fs_->WriteFileAtomically(Path(name), "");
  }
  EXPECT_THAT(fs_->GetMatchingPaths(Path("model.ckpt-*.index")),
              ElementsAre(Path("model.ckpt-100.index"), Path("model.ckpt-200.index")));
  EXPECT_THAT(fs_->GetMatchingPaths(Path("*.meta")), IsEmpty());
  EXPECT_THAT(fs_->GetMatchingPaths(Path("missing_dir/*")), IsEmpty());
}

// A writable file starts empty; what is appended is readable after Flush, and after Close.
TEST_F(FileSystemTest, WritableFileAppendsFlushesAndCloses) {
  fs_->WriteFileAtomically(Path("events"), "old contents");
  std::unique_ptr<WritableFile> file = fs_->NewWritableFile(Path("events"));
  EXPECT_EQ(fs_->FileSize(Path("events")), 0u);
  file->Append("record 1;");
  file->Flush();
  EXPECT_EQ(fs_->ReadFile(Path("events")), "record 1;");
  file->Append("record 2;");
  file->Sync();
  file->Close();
  EXPECT_EQ(fs_->ReadFile(Path("events")), "record 1;record 2;");
}

// An appendable file keeps what was there and writes after it; destroying it closes it.
TEST_F(FileSystemTest, AppendableFileWritesAfterExistingContents) {
  fs_->WriteFileAtomically(Path("events"), "head;");
  {
    std::unique_ptr<WritableFile> file = fs_->NewAppendableFile(Path("events"));
    file->Append("tail;");
  }  // Destroyed without Close: the data still arrives.
  EXPECT_EQ(fs_->ReadFile(Path("events")), "head;tail;");
  fs_->NewAppendableFile(Path("new"))->Close();
  EXPECT_TRUE(fs_->Exists(Path("new")));
}

// TruncateFile cuts a file back to a length (a torn last record removed); a missing file
// is NotFoundError naming it.
TEST_F(FileSystemTest, TruncateFileCutsBackToTheLengthGiven) {
  fs_->WriteFileAtomically(Path("events"), "whole;torn");
  fs_->TruncateFile(Path("events"), 6);
  EXPECT_EQ(fs_->ReadFile(Path("events")), "whole;");
  EXPECT_THAT([&] { fs_->TruncateFile(Path("gone"), 0); },
              ThrowsMessage<NotFoundError>(HasSubstr(Path("gone"))));
}

// After Close, writing is an error; closing again is not.
TEST_F(FileSystemTest, WritableFileAfterCloseThrowsFailedPrecondition) {
  std::unique_ptr<WritableFile> file = fs_->NewWritableFile(Path("events"));
  file->Close();
  EXPECT_THROW(file->Append("late"), FailedPreconditionError);
  EXPECT_THROW(file->Flush(), FailedPreconditionError);
  EXPECT_THROW(file->Sync(), FailedPreconditionError);
  file->Close();
}

// Opening a file for writing in a missing directory raises NotFoundError naming it.
TEST_F(FileSystemTest, NewWritableFileInAMissingDirectoryThrowsNotFound) {
  EXPECT_THROW(fs_->NewWritableFile(Path("missing/events")), NotFoundError);
  EXPECT_THROW(fs_->NewAppendableFile(Path("missing/events")), NotFoundError);
}

// One row per path case: JoinPath's two parts and result.
struct JoinCase {
  const char* a;
  const char* b;
  const char* joined;
};

// JoinPath puts exactly one '/' between non-empty parts, as TensorFlow's io::JoinPath.
// A FIFO, a device and a directory are refused before a byte is read: a FIFO would block
// the reader for ever and /dev/zero would never end (a checkpoint named by a link to it
// grew memory until bad_alloc).
TEST_F(FileSystemTest, ReadFileRefusesWhatIsNotARegularFile) {
  ASSERT_EQ(::mkfifo(Path("fifo").c_str(), 0644), 0);
  ASSERT_EQ(::symlink("/dev/zero", Path("zero").c_str()), 0);
  EXPECT_THAT([&] { fs_->ReadFile(Path("fifo")); },
              ThrowsMessage<FailedPreconditionError>(HasSubstr("is a FIFO, not a regular file")));
  EXPECT_THAT([&] { fs_->ReadFilePrefix(Path("zero"), 32); },
              ThrowsMessage<FailedPreconditionError>(HasSubstr("is a character device")));
  EXPECT_THAT([&] { fs_->ReadFile(dir_); },
              ThrowsMessage<FailedPreconditionError>(HasSubstr("is a directory")));
}

// ReadFilePrefix reads at most what it is asked for, so a header can be checked before a
// huge file is trusted.
TEST_F(FileSystemTest, ReadFilePrefixReadsOnlyThePrefix) {
  fs_->WriteFileAtomically(Path("f"), "0123456789");
  EXPECT_EQ(fs_->ReadFilePrefix(Path("f"), 4), "0123");
  EXPECT_EQ(fs_->ReadFilePrefix(Path("f"), 100), "0123456789");
  EXPECT_EQ(fs_->ReadFilePrefix(Path("f"), 0), "");
}

// An exclusive file is made only where nothing is: an existing file is never truncated.
TEST_F(FileSystemTest, NewExclusiveFileNeverTruncates) {
  fs_->WriteFileAtomically(Path("taken"), "precious");
  EXPECT_THROW(fs_->NewExclusiveFile(Path("taken")), AlreadyExistsError);
  EXPECT_EQ(fs_->ReadFile(Path("taken")), "precious");
  std::unique_ptr<WritableFile> file = fs_->NewExclusiveFile(Path("free"));
  file->Append("new");
  file->Close();
  EXPECT_EQ(fs_->ReadFile(Path("free")), "new");
}

// A path too long for the system is refused before any directory is made (mkdir -p used to
// make every directory up to the limit, then fail, leaving them all behind).
TEST_F(FileSystemTest, CreateDirectoriesOfATooLongPathMakesNothing) {
  std::string deep = dir_;
  while (deep.size() < 5000) deep = JoinPath(deep, "abcdefghij");
  EXPECT_THAT([&] { fs_->CreateDirectories(deep); },
              ThrowsMessage<InvalidArgumentError>(HasSubstr("choose a shorter path")));
  EXPECT_THAT([&] { fs_->CreateDirectories(JoinPath(dir_, std::string(300, 'n'))); },
              ThrowsMessage<InvalidArgumentError>(HasSubstr("choose a shorter name")));
  EXPECT_THAT(fs_->ListDirectory(dir_), IsEmpty());
}

// A failure part-way removes what the call made: here "new" is made, then a dangling link
// stands where a directory must be.
TEST_F(FileSystemTest, CreateDirectoriesRemovesWhatItMadeWhenItFails) {
  ASSERT_EQ(::symlink("nowhere", Path("link").c_str()), 0);
  EXPECT_THAT([&] { fs_->CreateDirectories(Path("new/../link/x")); },
              ThrowsMessage<FailedPreconditionError>(HasSubstr("exists and is not a directory")));
  EXPECT_THAT(fs_->ListDirectory(dir_), ElementsAre("link"));
}

// In a directory that exists but cannot hold files (/proc), the message says so, instead of
// advising to create the directory.
TEST_F(FileSystemTest, CreatingAFileInProcSaysTheDirectoryCannotHoldFiles) {
  EXPECT_THAT([&] { fs_->NewWritableFile("/proc/self/events"); },
              ThrowsMessage<NotFoundError>(HasSubstr("exists but cannot hold new files")));
  EXPECT_THAT([&] { fs_->CreateDirectories("/proc/self/run"); },
              ThrowsMessage<NotFoundError>(HasSubstr("exists but cannot hold new files")));
}

TEST(PathTest, JoinPath) {
  const JoinCase cases[] = {
      {"/tmp/run", "checkpoint", "/tmp/run/checkpoint"},
      {"/tmp/run/", "checkpoint", "/tmp/run/checkpoint"},
      {"/tmp/run", "/checkpoint", "/tmp/run/checkpoint"},
      {"/tmp/run//", "//checkpoint", "/tmp/run/checkpoint"},
      {"run", "eval/events", "run/eval/events"},
      {"", "checkpoint", "checkpoint"},
      {"run", "", "run"},
      {"/", "checkpoint", "/checkpoint"},
  };
  for (const JoinCase& c : cases) {
    EXPECT_EQ(JoinPath(c.a, c.b), c.joined) << '"' << c.a << "\" + \"" << c.b << '"';
  }
}

// One row per path: its Dirname and Basename.
struct SplitCase {
  const char* path;
  const char* dirname;
  const char* basename;
};

// Dirname and Basename split at the last '/', as TensorFlow's io::Dirname and io::Basename.
TEST(PathTest, DirnameAndBasename) {
  const SplitCase cases[] = {
      {"/tmp/run/checkpoint", "/tmp/run", "checkpoint"},
      {"run/checkpoint", "run", "checkpoint"},
      {"checkpoint", "", "checkpoint"},
      {"/checkpoint", "/", "checkpoint"},
      {"/tmp/run/", "/tmp/run", ""},
      {"", "", ""},
  };
  for (const SplitCase& c : cases) {
    EXPECT_EQ(Dirname(c.path), c.dirname) << c.path;
    EXPECT_EQ(Basename(c.path), c.basename) << c.path;
  }
}

// AbsolutePath normalises as os.path.abspath does; relative paths start at the working
// directory.
TEST(PathTest, AbsolutePath) {
  EXPECT_EQ(AbsolutePath("/a/./b/../c/"), "/a/c");
  EXPECT_EQ(AbsolutePath("//a//b"), "/a/b");
  EXPECT_EQ(AbsolutePath("/.."), "/");
  char cwd[4096];
  ASSERT_NE(::getcwd(cwd, sizeof(cwd)), nullptr);
  EXPECT_EQ(AbsolutePath("x/../y"), JoinPath(AbsolutePath(cwd), "y"));
}

// IsInDirectory: directly inside, after normalising both; ".." only as written in `dir`.
TEST(PathTest, IsInDirectory) {
  EXPECT_TRUE(IsInDirectory("/run/model.ckpt-5", "/run/"));
  EXPECT_TRUE(IsInDirectory("/run/./model.ckpt-5", "/x/../run"));
  EXPECT_FALSE(IsInDirectory("/old/model.ckpt-5", "/run"));
  EXPECT_FALSE(IsInDirectory("/run/sub/model.ckpt-5", "/run"));
  EXPECT_FALSE(IsInDirectory("/run/", "/"));
  // Issue 32, item 5: ".." after a name that may be a link is not taken as text.
  EXPECT_FALSE(IsInDirectory("/run/sub/../victim.txt", "/run"));
  EXPECT_FALSE(IsInDirectory("/run/..", "/"));
  EXPECT_TRUE(IsInDirectory("../run/model.ckpt-5", "../run"));
  EXPECT_TRUE(IsInDirectory("/x/../run/./model.ckpt-5", "/x/../run/"));
  EXPECT_FALSE(IsInDirectory("/x/../run/model.ckpt-5", "/run"));
}

// Issue 32, item 5, on the disk: DIR/sub a link to another directory, the state file's
// DIR/sub/../victim.txt is the file beside that directory, which the kernel would unlink.
TEST_F(FileSystemTest, IsInDirectoryDoesNotCollapseDotDotAfterASymbolicLink) {
  fs_->CreateDirectories(Path("run"));
  fs_->CreateDirectories(Path("elsewhere/deep"));
  ASSERT_EQ(::symlink(Path("elsewhere/deep").c_str(), Path("run/sub").c_str()), 0);
  fs_->WriteFileAtomically(Path("elsewhere/victim.txt"), "the user's file");
  const std::string entry = Path("run/sub/../victim.txt");
  EXPECT_EQ(fs_->ReadFile(entry), "the user's file");  // Where the kernel takes it.
  EXPECT_FALSE(IsInDirectory(entry, Path("run")));
}

}  // namespace
}  // namespace mts
