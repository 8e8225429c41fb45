// Tests of directory_lock.h: a second process is refused with the holder's pid, the lock is
// shared within a process, and it is released when its last handle goes or its process ends.
#include "src/platform/directory_lock.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "tests/testing/new_dir.h"

namespace mts {
namespace {

using ::testing::HasSubstr;

// Forks a child that tries to lock `dir`: exit 0 if it got the lock, 3 if refused with a
// message naming this process's pid (the holder), 4 for anything else.
int LockFromAnotherProcess(const std::string& dir) {
  const std::string parent = "pid " + std::to_string(::getpid()) + " on host";
  const pid_t child = ::fork();
  if (child == 0) {
    try {
      DirectoryLock::Acquire(dir, "checkpoints");
      ::_exit(0);
    } catch (const FailedPreconditionError& e) {
      ::_exit(std::string(e.what()).find(parent) != std::string::npos ? 3 : 4);
    } catch (...) {
      ::_exit(4);
    }
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// While this process holds the lock another process is refused, and told who holds it.
TEST(DirectoryLockTest, AnotherProcessIsRefusedWithTheHoldersPid) {
  const std::string dir = NewDir("refused");
  std::shared_ptr<DirectoryLock> lock = DirectoryLock::Acquire(dir, "checkpoints");
  EXPECT_EQ(LockFromAnotherProcess(dir), 3);
  lock.reset();
  EXPECT_EQ(LockFromAnotherProcess(dir), 0) << "released with the last handle";
}

// Within one process the lock is shared: a program that opens a second session on its
// directory is not a second chief.
TEST(DirectoryLockTest, OneProcessSharesItsLock) {
  const std::string dir = NewDir("shared");
  std::shared_ptr<DirectoryLock> first = DirectoryLock::Acquire(dir, "checkpoints");
  std::shared_ptr<DirectoryLock> second = DirectoryLock::Acquire(dir + "/./", "checkpoints");
  EXPECT_EQ(first, second);
  first.reset();
  EXPECT_EQ(LockFromAnotherProcess(dir), 3) << "still held by the second handle";
}

// A process that dies holding the lock releases it: the kernel closes its files.
TEST(DirectoryLockTest, ALockDiesWithItsProcess) {
  const std::string dir = NewDir("died");
  const pid_t child = ::fork();
  if (child == 0) {
    DirectoryLock::Acquire(dir, "checkpoints");
    ::_exit(0);  // Without releasing anything.
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_NO_THROW(DirectoryLock::Acquire(dir, "checkpoints"));
}

// A directory that does not exist cannot be locked; the error names the lock file.
TEST(DirectoryLockTest, AMissingDirectoryIsNotFound) {
  EXPECT_THAT(
      [] { DirectoryLock::Acquire("/nonexistent/mts", "checkpoints"); },
      ::testing::ThrowsMessage<NotFoundError>(HasSubstr("/nonexistent/mts/checkpoint.lock")));
}

// The victim's file a planted lock file points at, and what it held.
constexpr char kVictimText[] = "the victim's own file\n";

std::string VictimFile() {
  const std::string path = JoinPath(NewDir("victim"), "thesis.txt");
  DefaultFileSystem()->WriteFileAtomically(path, kVictimText);
  return path;
}

// Issue 32's attack: another user made the default directory (mode 777) with
// checkpoint.lock linking to the victim's file. The directory is refused before the lock
// file is opened, and the victim's file keeps its contents.
TEST(DirectoryLockTest, APlantedLinkInAWorldWritableDirectoryIsRefusedBeforeAnyWrite) {
  const std::string victim = VictimFile();
  const std::string dir = NewDir("planted");
  ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
  if (::geteuid() == 0) {
    ASSERT_EQ(::chown(dir.c_str(), 65534, 65534), 0);  // Truly theirs.
  }
  std::filesystem::create_symlink(victim, JoinPath(dir, DirectoryLock::kFileName));
  EXPECT_THAT([&] { DirectoryLock::Acquire(dir, "checkpoints"); },
              ::testing::ThrowsMessage<PermissionDeniedError>(HasSubstr("The directory " + dir)));
  EXPECT_EQ(DefaultFileSystem()->ReadFile(victim), kVictimText);
}

// Even in a directory of this user's, the lock file is never followed through a link: it is
// refused, naming it and what to do, and the file the link names is left as it was.
TEST(DirectoryLockTest, ALockFileThatIsASymbolicLinkIsRefused) {
  const std::string victim = VictimFile();
  const std::string dir = NewDir("link");
  const std::string lock = JoinPath(dir, DirectoryLock::kFileName);
  std::filesystem::create_symlink(victim, lock);
  EXPECT_THAT(
      [&] { DirectoryLock::Acquire(dir, "checkpoints"); },
      ::testing::ThrowsMessage<PermissionDeniedError>(::testing::AllOf(
          HasSubstr("The lock file " + lock + " is a symbolic link"), HasSubstr("rm " + lock))));
  EXPECT_EQ(DefaultFileSystem()->ReadFile(victim), kVictimText);
}

// A hard link is a second name of the victim's file: refused the same way.
TEST(DirectoryLockTest, ALockFileWithASecondNameIsRefused) {
  const std::string dir = NewDir("hard_link");
  const std::string victim = JoinPath(dir, "thesis.txt");
  DefaultFileSystem()->WriteFileAtomically(victim, kVictimText);
  ASSERT_EQ(::link(victim.c_str(), JoinPath(dir, DirectoryLock::kFileName).c_str()), 0);
  EXPECT_THAT([&] { DirectoryLock::Acquire(dir, "checkpoints"); },
              ::testing::ThrowsMessage<PermissionDeniedError>(HasSubstr("has 2 names")));
  EXPECT_EQ(DefaultFileSystem()->ReadFile(victim), kVictimText);
}

// A FIFO under the lock's name neither blocks the open nor is written to.
TEST(DirectoryLockTest, ALockFileThatIsAFifoIsRefusedWithoutBlocking) {
  const std::string dir = NewDir("fifo");
  ASSERT_EQ(::mkfifo(JoinPath(dir, DirectoryLock::kFileName).c_str(), 0644), 0);
  EXPECT_THAT([&] { DirectoryLock::Acquire(dir, "checkpoints"); },
              ::testing::ThrowsMessage<PermissionDeniedError>(HasSubstr("is not a regular file")));
}

// A lock file another user owns (only root can make one for the test).
TEST(DirectoryLockTest, ALockFileAnotherUserOwnsIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root can give a file to another user";
  const std::string dir = NewDir("their_lock");
  const std::string lock = JoinPath(dir, DirectoryLock::kFileName);
  DefaultFileSystem()->WriteFileAtomically(lock, "theirs\n");
  ASSERT_EQ(::chown(lock.c_str(), 65534, 65534), 0);
  EXPECT_THAT([&] { DirectoryLock::Acquire(dir, "checkpoints"); },
              ::testing::ThrowsMessage<PermissionDeniedError>(
                  HasSubstr("belongs to uid 65534, not to this user")));
  EXPECT_EQ(DefaultFileSystem()->ReadFile(lock), "theirs\n");
}

}  // namespace
}  // namespace mts
