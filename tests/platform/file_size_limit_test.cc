// A write past the file-size limit (`ulimit -f`, RLIMIT_FSIZE), issue 32: by default the
// kernel's SIGXFSZ kills the writer on the spot, with no message and no final checkpoint.
// Ignored, as Python ignores it (and so do SignalStopHook and the example programs), the
// write fails with EFBIG instead: the error names the file and the limit, and an atomic
// write leaves the file it was to replace whole, with no temporary beside it. Each case runs
// in a forked child, since a limit and a signal disposition belong to the whole process.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "tests/testing/new_dir.h"

namespace mts {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr rlim_t kLimit = 4096;

// How a child that wrote `size` bytes atomically over `path` under kLimit ended: the
// message of what it caught, or how it died.
struct Outcome {
  bool killed = false;
  int signal = 0;
  std::string message;
};

Outcome WriteUnderTheLimit(const std::string& path, size_t size, bool ignore_sigxfsz) {
  int fds[2];
  if (::pipe(fds) != 0) return {};
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(fds[0]);
    ::signal(SIGXFSZ, ignore_sigxfsz ? SIG_IGN : SIG_DFL);
    rlimit limit{};
    ::getrlimit(RLIMIT_FSIZE, &limit);
    limit.rlim_cur = kLimit;
    ::setrlimit(RLIMIT_FSIZE, &limit);
    std::string message = "no error";
    try {
      DefaultFileSystem()->WriteFileAtomically(path, std::string(size, 'x'));
    } catch (const OpError& e) {
      message = std::string(e.what()) + " [" + ErrorCodeName(e.code()) + "]";
    }
    (void)!::write(fds[1], message.data(), message.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  Outcome outcome;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof(buffer))) > 0;) {
    outcome.message.append(buffer, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  outcome.killed = WIFSIGNALED(status);
  outcome.signal = outcome.killed ? WTERMSIG(status) : 0;
  return outcome;
}

// The attack as it was: the default disposition kills the writer, and says nothing.
TEST(FileSizeLimitTest, UnignoredTheSignalKillsTheWriterSilently) {
  const std::string dir = NewDir("killed");
  const Outcome outcome = WriteUnderTheLimit(JoinPath(dir, "model.ckpt-1"), 65536, false);
  EXPECT_TRUE(outcome.killed);
  EXPECT_EQ(outcome.signal, SIGXFSZ);
  EXPECT_EQ(outcome.message, "");
}

// Ignored: an error naming the file (not the temporary) and the limit, what to do, and the
// old file whole; nothing else in the directory.
TEST(FileSizeLimitTest, IgnoredTheWriteFailsNamingTheFileAndTheLimitAndKeepsTheOldFile) {
  const std::string dir = NewDir("efbig");
  const std::string path = JoinPath(dir, "checkpoint");
  DefaultFileSystem()->WriteFileAtomically(path, "the last good state\n");
  const Outcome outcome = WriteUnderTheLimit(path, 65536, true);
  ASSERT_FALSE(outcome.killed) << "killed by signal " << outcome.signal;
  EXPECT_THAT(outcome.message,
              AllOf(HasSubstr(path + "; File too large"),
                    HasSubstr("this process may write files of at most 4096 bytes, `ulimit -f` 4"),
                    HasSubstr("raise the limit"), HasSubstr("[OUT_OF_RANGE]")));
  EXPECT_EQ(DefaultFileSystem()->ReadFile(path), "the last good state\n");
  EXPECT_THAT(DefaultFileSystem()->ListDirectory(dir), ElementsAre("checkpoint"));
}

// Below the limit nothing changes.
TEST(FileSizeLimitTest, AWriteWithinTheLimitSucceeds) {
  const std::string dir = NewDir("within");
  const Outcome outcome = WriteUnderTheLimit(JoinPath(dir, "small"), 1000, true);
  EXPECT_FALSE(outcome.killed);
  EXPECT_EQ(outcome.message, "no error");
}

}  // namespace
}  // namespace mts
