#include "src/platform/private_directory.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <vector>

#include "src/platform/errors.h"
#include "src/platform/file_system.h"

namespace mts {
namespace {

// "alice (uid 1000)", or "uid 1000" for a user the password database does not know.
std::string UserName(uid_t uid) {
  std::vector<char> buffer(16384);
  passwd entry{};
  passwd* found = nullptr;
  if (::getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr) {
    return std::string(found->pw_name) + " (uid " + std::to_string(uid) + ")";
  }
  return "uid " + std::to_string(uid);
}

std::string Octal(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof(text), "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

}  // namespace

// [mts:private-directory]
void CheckPrivateDirectory(const std::string& dir, const std::string& what) {
  // Only an existing directory is judged here. One that does not exist yet is owned by
  // whoever makes it (and checked again when locked); a path that cannot be examined, or
  // that is a file, fails where it is used, with that use's own message.
  struct stat info;
  if (::stat(dir.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) return;
  const uid_t me = ::geteuid();
  const std::string risk = "another user could plant " + what +
                           " there for this run to use, or links that make it overwrite files "
                           "of their choosing";
  if (info.st_uid != me && info.st_uid != 0) {
    throw PermissionDeniedError("The directory " + dir + " is owned by " + UserName(info.st_uid) +
                                ", not by this user, " + UserName(me) + ": " + risk +
                                ". Use a directory of your own for the " + what +
                                " (e.g. one under your home directory).");
  }
  if ((info.st_mode & S_IWOTH) != 0 && (info.st_mode & S_ISVTX) == 0) {
    throw PermissionDeniedError("The directory " + dir + " is writable by every user (mode " +
                                Octal(info.st_mode) + ", no sticky bit): " + risk +
                                ". Make it private (chmod o-w " + dir +
                                ") after checking what it holds, or use a directory of your own "
                                "for the " +
                                what + ".");
  }
}
// [mts:private-directory-end]

}  // namespace mts
