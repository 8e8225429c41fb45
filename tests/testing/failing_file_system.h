// failing_file_system.h: the real file system with a disk that fails on demand: every write
// to a path containing a given string fails with a given errno (ENOSPC: a full disk), until
// told to stop, so a test can fill a disk and free it again.
//
//   ForwardingFileSystem (forwarding_file_system.h)
//     FailingWritesFileSystem  <-- this file: writes fail, reads work
//
// The failures are raised through ThrowFileSystemError, so they carry exactly the class and
// message DefaultFileSystem() gives for the same errno. Writes are: creating a file or a
// directory, an atomic write (whole or in pieces), a rename onto a matching path, and every
// Append, Flush and Sync of a file opened through it (so a writer that opened its file
// before the disk filled fails too, as it would on a real disk).
//
// Thread safety: any number of threads (set_failing may race with writes).
#ifndef MTS_TESTS_TESTING_FAILING_FILE_SYSTEM_H_
#define MTS_TESTS_TESTING_FAILING_FILE_SYSTEM_H_

#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tests/testing/forwarding_file_system.h"

namespace mts {

/// The real file system, whose writes to paths containing `match` fail with errno `err`.
class FailingWritesFileSystem : public ForwardingFileSystem {
 public:
  /// Fails writes to paths containing `match` with `err` (ENOSPC, EACCES, ...), from now on.
  FailingWritesFileSystem(std::string match, int err);

  /// Starts (true) or stops (false) failing: a disk that fills, then is freed.
  void set_failing(bool failing) { failing_ = failing; }
  /// How many writes have failed so far.
  int failures() const { return failures_; }

  /// \cond
  void WriteFileAtomically(const std::string& path, std::string_view contents) override;
  void WritePiecesAtomically(const std::string& path,
                             const std::vector<std::string_view>& pieces) override;
  std::unique_ptr<WritableFile> NewWritableFile(const std::string& path) override;
  std::unique_ptr<WritableFile> NewExclusiveFile(const std::string& path) override;
  std::unique_ptr<WritableFile> NewAppendableFile(const std::string& path) override;
  void RenameFile(const std::string& from, const std::string& to) override;
  void CreateDirectories(const std::string& dir) override;
  /// \endcond

  /// Raises the configured error if writes are failing and `path` matches.
  void Check(const std::string& path);

 private:
  std::unique_ptr<WritableFile> Wrap(const std::string& path, std::unique_ptr<WritableFile> file);

  const std::string match_;
  const int err_;
  std::atomic<bool> failing_{true};
  std::atomic<int> failures_{0};
};

}  // namespace mts

#endif  // MTS_TESTS_TESTING_FAILING_FILE_SYSTEM_H_
