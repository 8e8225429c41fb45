// Tests of directory_lock.h: a second process is refused with the holder's pid, the lock is
// shared within a process, and it is released when its last handle goes or its process ends.
#include "src/platform/directory_lock.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
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
  EXPECT_THAT([] { DirectoryLock::Acquire("/nonexistent/mts", "checkpoints"); },
              ::testing::ThrowsMessage<NotFoundError>(HasSubstr("/nonexistent/mts/checkpoint.lock")));
}

}  // namespace
}  // namespace mts
