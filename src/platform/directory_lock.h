// directory_lock.h: an advisory lock on a directory, so that two processes never write the
// same checkpoints.
//
//   HookedSession      CheckpointSaverHook takes the lock of its checkpoint directory in
//                      Begin and holds it while the hook lives
//   platform           <-- this file: DirectoryLock, beside FileSystem
//
// Two chiefs started on one checkpoint directory (a job launched twice, a copy-pasted
// command) each write model.ckpt-N and the `checkpoint` state file, rotate each other's
// files away and leave a state file that names neither's history. TensorFlow does not notice.
// mts refuses the second: the lock is flock(2) on "<dir>/checkpoint.lock", whose contents
// name the holder (pid, host, program, since when), so the refusal can say who it is.
//
// The kernel releases the lock when the holder's process ends, however it ends (a crash, a
// SIGKILL), so a lock is never stale; the file stays behind, harmlessly, and its contents
// are trusted only while someone holds it. Within one process the lock of a directory is
// shared: a second Acquire returns the same lock (a program that closes one session and
// opens another on the same directory is not two chiefs). flock works between processes on
// one machine and on NFS (Linux maps it to a POSIX lock there); two machines mounting one
// directory over a file system without locks are not protected.
//
// The lock file is written, so it is opened without following a symbolic link and refused
// unless it is a regular file of this user's, and the directory itself must be private to
// this user (private_directory.h): on a shared machine another user could otherwise plant
// a link under the lock's name and have this process overwrite the file it points to.
//
// Thread safety: Acquire may be called from any thread; a lock is released when the last
// handle to it is destroyed.
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
