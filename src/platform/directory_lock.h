// directory_lock.h: an advisory lock on a directory, so that two processes never write the
// same checkpoints.
//
// Platform, beside FileSystem; CheckpointSaverHook holds its directory's lock from Begin to
// End. The lock is flock(2) on "<dir>/checkpoint.lock", whose contents name the holder
// (pid, host, program, since when); a second process is refused with
// FailedPreconditionError naming it. The kernel drops it when the holder's process ends;
// within one process a second Acquire returns the same lock. The lock file is opened
// without following a link, in a private directory (private_directory.h). Thread safety:
// Acquire from any thread; a lock is released with its last handle.
//
// TensorFlow: none; TF1 lets two chiefs share a directory.
#ifndef MTS_SRC_PLATFORM_DIRECTORY_LOCK_H_
#define MTS_SRC_PLATFORM_DIRECTORY_LOCK_H_

#include <memory>
#include <string>
#include <utility>

namespace mts {

/// An exclusive advisory lock on a directory, held by one process.
///
/// Lifecycle: 1. Acquire (or be refused); 2. keep the handle while writing; 3. drop it (or
/// exit): the lock is released.
class DirectoryLock {
 public:
  /// The name of the lock file inside a locked directory.
  static constexpr const char* kFileName = "checkpoint.lock";

  /// Locks `dir` (which must exist) for this process, or returns the lock this process
  /// already holds on it. `what` says what the holder writes there ("checkpoints"), for the
  /// refusal's message.
  /// \throws FailedPreconditionError naming the other process (pid, host, program, since)
  ///   if another process holds the lock; OpError naming the lock file if it cannot be
  ///   made (a missing or read-only directory).
  /// \throws PermissionDeniedError if another user could have placed files in `dir`
  ///   (CheckPrivateDirectory), or if the lock file is not a regular file of this user's with
  ///   one name (a symbolic link, a FIFO, a hard link); nothing is written then.
  static std::shared_ptr<DirectoryLock> Acquire(const std::string& dir, const std::string& what);

  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;
  /// Releases the lock (closing the file); never throws.
  ~DirectoryLock();

  /// The lock file's path.
  const std::string& path() const { return path_; }

 private:
  DirectoryLock(std::string path, int fd, int pid) : path_(std::move(path)), fd_(fd), pid_(pid) {}

  std::string path_;
  int fd_;
  int pid_;  // The process that locked: a forked child must not take the lock as its own.
};

}  // namespace mts

#endif  // MTS_SRC_PLATFORM_DIRECTORY_LOCK_H_
