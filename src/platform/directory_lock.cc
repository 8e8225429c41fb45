#include "src/platform/directory_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <map>
#include <mutex>
#include <utility>

#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "src/platform/private_directory.h"

namespace mts {
namespace {

// Who holds a lock: one line, written into the lock file by its holder.
std::string Identity() {
  char host[256] = {};
  if (::gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  char program[4096] = {};
  if (::readlink("/proc/self/exe", program, sizeof(program) - 1) < 0) program[0] = '\0';
  char since[32] = {};
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  std::strftime(since, sizeof(since), "%Y-%m-%d %H:%M:%S UTC", &utc);
  return "pid " + std::to_string(::getpid()) + " on host " + (host[0] ? host : "?") + " (" +
         (program[0] ? program : "?") + "), since " + since;
}

// What the holder wrote, or a placeholder if it has not written yet.
std::string ReadHolder(int fd) {
  char buffer[1024] = {};
  const ssize_t n = ::pread(fd, buffer, sizeof(buffer) - 1, 0);
  std::string holder = n > 0 ? std::string(buffer, static_cast<size_t>(n)) : "";
  while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\0')) holder.pop_back();
  return holder.empty() ? "a process that has not identified itself yet" : holder;
}

// [mts:open-lock-file]
// Opens (or makes) the lock file, which must be a regular file of this user's with no
// other name: the lock file is written, so a link planted under its name would make this
// process overwrite the file the link names. O_NOFOLLOW refuses a symbolic link, O_NONBLOCK
// keeps a FIFO from blocking the open; what is opened is checked before anything is written.
int OpenLockFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  const int err = errno;
  std::string wrong;
  struct stat info;
  if (fd < 0 && err == ELOOP) {
    wrong = "is a symbolic link";
  } else if (fd < 0) {
    ThrowCreationError(path, err);
  } else if (::fstat(fd, &info) != 0) {
    wrong = "cannot be examined";
  } else if (!S_ISREG(info.st_mode)) {
    wrong = "is not a regular file";
  } else if (info.st_uid != ::geteuid()) {
    wrong = "belongs to uid " + std::to_string(info.st_uid) + ", not to this user";
  } else if (info.st_nlink != 1) {
    wrong = "has " + std::to_string(info.st_nlink) + " names (hard links)";
  }
  if (wrong.empty()) return fd;
  if (fd >= 0) ::close(fd);
  throw PermissionDeniedError("The lock file " + path + " " + wrong +
                              ": writing it could overwrite another file, so it was not "
                              "touched. Check who made it and remove it (rm " +
                              path + "), or use a directory of your own.");
}
// [mts:open-lock-file-end]

// The locks this process holds, by directory, so a second Acquire shares the first.
std::mutex registry_mu;
std::map<std::string, std::weak_ptr<DirectoryLock>>& Registry() {
  static auto* registry = new std::map<std::string, std::weak_ptr<DirectoryLock>>;
  return *registry;
}

}  // namespace

std::shared_ptr<DirectoryLock> DirectoryLock::Acquire(const std::string& dir,
                                                      const std::string& what) {
  const std::string key = AbsolutePath(dir);
  std::lock_guard<std::mutex> lock(registry_mu);
  // A forked child inherits the registry but is another process: it must lock anew.
  std::shared_ptr<DirectoryLock> held = Registry()[key].lock();
  if (held != nullptr && held->pid_ == ::getpid()) return held;

  // Beyond a lock: nobody else may have placed files here for this process to write.
  CheckPrivateDirectory(dir, what);
  const std::string path = JoinPath(dir, kFileName);
  const int fd = OpenLockFile(path);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    const std::string holder = err == EWOULDBLOCK ? ReadHolder(fd) : "";
    ::close(fd);
    if (err != EWOULDBLOCK) ThrowFileSystemError(path, err);
    throw FailedPreconditionError(
        "The directory " + dir + " is in use by another process: " + holder + ". Two " +
        "processes writing " + what + " in one directory overwrite each other's files; give " +
        "this run its own directory, or stop the other process first (" + path +
        " is released when it exits).");
  }
  // Ours: say who we are, for the next one to be refused.
  const std::string identity = Identity() + "\n";
  if (::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, identity.data(), identity.size(), 0) != static_cast<ssize_t>(identity.size())) {
    // The lock holds all the same; a refused process would only read a vaguer message.
  }
  std::shared_ptr<DirectoryLock> acquired(new DirectoryLock(path, fd, ::getpid()));
  Registry()[key] = acquired;
  return acquired;
}

DirectoryLock::~DirectoryLock() {
  // Closing the descriptor releases the flock. The file stays: deleting it would race with
  // a process that has opened it and is about to lock it.
  ::close(fd_);
}

}  // namespace mts
