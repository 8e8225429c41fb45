// Tests of private_directory.h: a directory another local user could plant files in is
// refused, naming the directory, what is wrong and what to do; a private one, a sticky
// world-writable one (/tmp's kind) and a missing one pass.
#include "src/platform/private_directory.h"

#include <sys/stat.h>
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
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

constexpr uid_t kNobody = 65534;

// A directory of this user's with `mode`.
std::string DirWithMode(const std::string& name, mode_t mode) {
  const std::string dir = NewDir(name);
  EXPECT_EQ(::chmod(dir.c_str(), mode), 0);
  return dir;
}

// This user's own directory, whether only it or also its group may write.
TEST(PrivateDirectoryTest, ADirectoryOfThisUsersPasses) {
  EXPECT_NO_THROW(CheckPrivateDirectory(DirWithMode("mine", 0755), "checkpoints"));
  EXPECT_NO_THROW(CheckPrivateDirectory(DirWithMode("group", 0775), "checkpoints"));
}

// /tmp's kind: everyone may create files, but only their owner may remove or rename them.
TEST(PrivateDirectoryTest, AWorldWritableDirectoryWithTheStickyBitPasses) {
  EXPECT_NO_THROW(CheckPrivateDirectory(DirWithMode("sticky", 01777), "checkpoints"));
}

// A directory that does not exist yet: whoever makes it will own it.
TEST(PrivateDirectoryTest, AMissingDirectoryPasses) {
  EXPECT_NO_THROW(CheckPrivateDirectory(JoinPath(NewDir("parent"), "not_yet"), "checkpoints"));
}

// The attack: /tmp/mts_spirals made mode 777 before the victim's first run. Anyone may
// replace its files, so it is refused, with the mode and the command that fixes it.
TEST(PrivateDirectoryTest, AWorldWritableDirectoryWithoutTheStickyBitIsRefused) {
  const std::string dir = DirWithMode("open", 0777);
  EXPECT_THAT(
      [&] { CheckPrivateDirectory(dir, "checkpoints"); },
      ThrowsMessage<PermissionDeniedError>(AllOf(
          HasSubstr("The directory " + dir + " is writable by every user (mode 0777"),
          HasSubstr("another user could plant checkpoints there"), HasSubstr("chmod o-w " + dir))));
}

// The attack by ownership: the directory belongs to someone else. Only root can make a
// directory another user owns; run as another user, the test has nothing to make.
TEST(PrivateDirectoryTest, ADirectoryAnotherUserOwnsIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root can give a directory to another user";
  const std::string dir = DirWithMode("theirs", 0755);
  ASSERT_EQ(::chown(dir.c_str(), kNobody, kNobody), 0);
  EXPECT_THAT([&] { CheckPrivateDirectory(dir, "checkpoints"); },
              ThrowsMessage<PermissionDeniedError>(
                  AllOf(HasSubstr("The directory " + dir + " is owned by "), HasSubstr("uid 65534"),
                        HasSubstr("not by this user"),
                        HasSubstr("Use a directory of your own for the checkpoints"))));
}

// A file where a directory should be is left to the code that uses the path, whose message
// says what to do with it.
TEST(PrivateDirectoryTest, AFileIsLeftToItsUser) {
  const std::string file = JoinPath(NewDir("file"), "plain");
  DefaultFileSystem()->WriteFileAtomically(file, "x");
  EXPECT_NO_THROW(CheckPrivateDirectory(file, "checkpoints"));
}

}  // namespace
}  // namespace mts
