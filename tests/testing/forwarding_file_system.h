// forwarding_file_system.h: a FileSystem that hands every call to another one, for test
// doubles that change one or two calls and leave the rest real.
//
//   FileSystem (src/platform/file_system.h)   the seam every stage writes through
//     ForwardingFileSystem  <-- this file: the real thing, by default
//       FailingWritesFileSystem (failing_file_system.h), a watched one in file_writer_test
//
// A double derives from it and overrides only what it changes, so a new FileSystem call
// needs one forwarding line here instead of one in every double.
//
// Thread safety: as the file system it forwards to.
#ifndef MTS_TESTS_TESTING_FORWARDING_FILE_SYSTEM_H_
#define MTS_TESTS_TESTING_FORWARDING_FILE_SYSTEM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "src/platform/file_system.h"

namespace mts {

/// Forwards every call to `base` (DefaultFileSystem() unless given).
class ForwardingFileSystem : public FileSystem {
 public:
  /// Forwards to `base`, which must outlive this; null means DefaultFileSystem().
  explicit ForwardingFileSystem(FileSystem* base = nullptr)
      : base_(base != nullptr ? base : DefaultFileSystem()) {}

  /// \cond
  std::string ReadFile(const std::string& path) override { return base_->ReadFile(path); }
  std::string ReadFilePrefix(const std::string& path, uint64_t max_bytes) override {
    return base_->ReadFilePrefix(path, max_bytes);
  }
  void WriteFileAtomically(const std::string& path, std::string_view contents) override {
    base_->WriteFileAtomically(path, contents);
  }
  void WritePiecesAtomically(const std::string& path,
                             const std::vector<std::string_view>& pieces) override {
    base_->WritePiecesAtomically(path, pieces);
  }
  std::unique_ptr<RandomAccessFile> NewRandomAccessFile(const std::string& path) override {
    return base_->NewRandomAccessFile(path);
  }
  std::unique_ptr<WritableFile> NewWritableFile(const std::string& path) override {
    return base_->NewWritableFile(path);
  }
  std::unique_ptr<WritableFile> NewExclusiveFile(const std::string& path) override {
    return base_->NewExclusiveFile(path);
  }
  std::unique_ptr<WritableFile> NewAppendableFile(const std::string& path) override {
    return base_->NewAppendableFile(path);
  }
  bool Exists(const std::string& path) override { return base_->Exists(path); }
  std::vector<std::string> ListDirectory(const std::string& dir) override {
    return base_->ListDirectory(dir);
  }
  void DeleteFile(const std::string& path) override { base_->DeleteFile(path); }
  void RenameFile(const std::string& from, const std::string& to) override {
    base_->RenameFile(from, to);
  }
  void CreateDirectories(const std::string& dir) override { base_->CreateDirectories(dir); }
  uint64_t FileSize(const std::string& path) override { return base_->FileSize(path); }
  void TruncateFile(const std::string& path, uint64_t size) override {
    base_->TruncateFile(path, size);
  }
  std::vector<std::string> GetMatchingPaths(const std::string& pattern) override {
    return base_->GetMatchingPaths(pattern);
  }
  /// \endcond

 protected:
  /// The file system calls go to.
  FileSystem* base() const { return base_; }

 private:
  FileSystem* base_;
};

}  // namespace mts

#endif  // MTS_TESTS_TESTING_FORWARDING_FILE_SYSTEM_H_
