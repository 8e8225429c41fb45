#include "tests/testing/failing_file_system.h"

#include <utility>

namespace mts {
namespace {

// A file opened through the failing file system: its writes fail while the disk does.
class FailingFile : public WritableFile {
 public:
  FailingFile(FailingWritesFileSystem* fs, std::string path, std::unique_ptr<WritableFile> file)
      : fs_(fs), path_(std::move(path)), file_(std::move(file)) {}
  void Append(std::string_view data) override {
    fs_->Check(path_);
    file_->Append(data);
  }
  void Flush() override {
    fs_->Check(path_);
    file_->Flush();
  }
  void Sync() override {
    fs_->Check(path_);
    file_->Sync();
  }
  void Close() override { file_->Close(); }

 private:
  FailingWritesFileSystem* fs_;
  std::string path_;
  std::unique_ptr<WritableFile> file_;
};

}  // namespace

FailingWritesFileSystem::FailingWritesFileSystem(std::string match, int err)
    : match_(std::move(match)), err_(err) {}

void FailingWritesFileSystem::Check(const std::string& path) {
  if (failing_ && path.find(match_) != std::string::npos) {
    ++failures_;
    ThrowFileSystemError(path, err_);
  }
}

std::unique_ptr<WritableFile> FailingWritesFileSystem::Wrap(const std::string& path,
                                                            std::unique_ptr<WritableFile> file) {
  return std::make_unique<FailingFile>(this, path, std::move(file));
}

void FailingWritesFileSystem::WriteFileAtomically(const std::string& path,
                                                  std::string_view contents) {
  Check(path);
  base()->WriteFileAtomically(path, contents);
}

void FailingWritesFileSystem::WritePiecesAtomically(const std::string& path,
                                                    const std::vector<std::string_view>& pieces) {
  Check(path);
  base()->WritePiecesAtomically(path, pieces);
}

std::unique_ptr<WritableFile> FailingWritesFileSystem::NewWritableFile(const std::string& path) {
  Check(path);
  return Wrap(path, base()->NewWritableFile(path));
}

std::unique_ptr<WritableFile> FailingWritesFileSystem::NewExclusiveFile(const std::string& path) {
  Check(path);
  return Wrap(path, base()->NewExclusiveFile(path));
}

std::unique_ptr<WritableFile> FailingWritesFileSystem::NewAppendableFile(const std::string& path) {
  Check(path);
  return Wrap(path, base()->NewAppendableFile(path));
}

void FailingWritesFileSystem::RenameFile(const std::string& from, const std::string& to) {
  Check(to);
  base()->RenameFile(from, to);
}

void FailingWritesFileSystem::CreateDirectories(const std::string& dir) {
  Check(dir);
  base()->CreateDirectories(dir);
}

}  // namespace mts
