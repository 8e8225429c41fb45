// fuzz_file_system.h: a FileSystem that holds one file in memory, for the fuzz targets.
//
//   tests/fuzz/*_fuzzer.cc  hand the fuzzer's bytes to a reader as if they were a file
//   fuzz_file_system.h  <-- this file: ReadFile returns those bytes, nothing touches disk
//   FileSystem              platform: the seam every reader reads through
//
// The readers under test take a FileSystem and a path, as production code calls them, so
// the fuzzer exercises exactly the code a real file goes through, minus the disk: millions
// of inputs a minute instead of thousands. Every operation a reader should not need throws.
#ifndef MTS_TESTS_FUZZ_FUZZ_FILE_SYSTEM_H_
#define MTS_TESTS_FUZZ_FUZZ_FILE_SYSTEM_H_

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/platform/errors.h"
#include "src/platform/file_system.h"

namespace mts {

/// One read-only file, `path`, holding `contents`; every other path is missing.
class OneFileFileSystem : public FileSystem {
 public:
  /// The file system with the single file `path` = `contents`.
  OneFileFileSystem(std::string path, std::string contents)
      : path_(std::move(path)), contents_(std::move(contents)) {}

  /// The contents, or NotFoundError for any other path.
  std::string ReadFile(const std::string& path) override {
    Check(path);
    return contents_;
  }
  /// The first `max_bytes` of the contents, or NotFoundError for any other path.
  std::string ReadFilePrefix(const std::string& path, uint64_t max_bytes) override {
    Check(path);
    return contents_.substr(0, max_bytes);
  }
  /// True only for the one file.
  bool Exists(const std::string& path) override { return path == path_; }
  /// The one file's size. \throws NotFoundError for any other path.
  uint64_t FileSize(const std::string& path) override {
    Check(path);
    return contents_.size();
  }
  /// The one file's base name if `dir` is its directory.
  std::vector<std::string> ListDirectory(const std::string& dir) override {
    if (dir == Dirname(path_)) return {Basename(path_)};
    throw NotFoundError("OneFileFileSystem: no directory " + dir);
  }
  /// \cond
  void WriteFileAtomically(const std::string&, std::string_view) override { ReadOnly(); }
  std::unique_ptr<WritableFile> NewWritableFile(const std::string&) override { ReadOnly(); }
  std::unique_ptr<WritableFile> NewAppendableFile(const std::string&) override { ReadOnly(); }
  std::unique_ptr<WritableFile> NewExclusiveFile(const std::string&) override { ReadOnly(); }
  void DeleteFile(const std::string&) override { ReadOnly(); }
  void RenameFile(const std::string&, const std::string&) override { ReadOnly(); }
  void CreateDirectories(const std::string&) override { ReadOnly(); }
  void TruncateFile(const std::string&, uint64_t) override { ReadOnly(); }
  std::vector<std::string> GetMatchingPaths(const std::string&) override { ReadOnly(); }
  /// \endcond

 private:
  void Check(const std::string& path) const {
    if (path != path_) throw NotFoundError("OneFileFileSystem: no file " + path);
  }
  // A reader that writes is a bug the fuzzer should report, so this is not an OpError.
  [[noreturn]] static void ReadOnly() {
    throw std::logic_error("OneFileFileSystem: a reader tried to write");
  }

  std::string path_;
  std::string contents_;
};

}  // namespace mts

#endif  // MTS_TESTS_FUZZ_FUZZ_FILE_SYSTEM_H_
