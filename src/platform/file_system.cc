#include "src/platform/file_system.h"

#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "src/01_session/errors.h"
#include "src/platform/logging.h"

namespace mts {
namespace {

// What a user can do about `err`, for the errors a training job meets in practice; "" for
// the rest, whose strerror says all there is to say.
const char* AdviceFor(int err) {
  switch (err) {
    case ENOENT:
      return " (check the path, or create the directory first)";
    case EPERM:
    case EACCES:
    case EROFS:
      return " (make the directory writable by this user, or choose another one)";
    case ENOSPC:
    case EDQUOT:
      return " (free disk space, or write to another disk; files already written are intact)";
    case EMFILE:
    case ENFILE:
      return " (too many open files: raise the limit with ulimit -n, or close writers)";
    case ENOTDIR:
      return " (a component of the path is a file: remove it or choose another path)";
    default:
      return "";
  }
}

}  // namespace

void ThrowFileSystemError(const std::string& context, int err) {
  const std::string message = context + "; " + std::strerror(err) + AdviceFor(err);
  switch (err) {
    case ENOENT:
    case ENODEV:
    case ENXIO:
      throw NotFoundError(message);
    case EEXIST:
      throw AlreadyExistsError(message);
    case EPERM:
    case EACCES:
    case EROFS:
      throw PermissionDeniedError(message);
    case ENOTDIR:
    case EISDIR:
    case ENOTEMPTY:
    case EBUSY:
      throw FailedPreconditionError(message);
    case ENOSPC:
    case EDQUOT:
    case EMFILE:
    case ENFILE:
    case ENOMEM:
      throw ResourceExhaustedError(message);
    case EFBIG:
    case EOVERFLOW:
      throw OutOfRangeError(message);
    case EINVAL:
    case ENAMETOOLONG:
      throw InvalidArgumentError(message);
    case EIO:
      throw DataLossError(message);
    default:
      throw UnknownError(message);
  }
}

namespace {

// write(2) may write less than asked, or be interrupted; loop until all of `data` is out.
void WriteAll(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      ThrowFileSystemError(path, errno);
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
}

// Makes a directory entry (a rename into `dir`) durable: fsync on the directory itself.
void SyncDirectory(const std::string& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) ThrowFileSystemError(dir, errno);
  const int sync_result = ::fsync(fd);
  const int sync_errno = errno;
  ::close(fd);
  if (sync_result != 0) ThrowFileSystemError(dir, sync_errno);
}

// A WritableFile over a stdio FILE*: stdio's buffer makes many small Appends (one event
// record after another) cheap, Flush empties it into the kernel, Sync adds fsync(2).
class PosixWritableFile : public WritableFile {
 public:
  PosixWritableFile(std::string path, std::FILE* file) : path_(std::move(path)), file_(file) {}

  ~PosixWritableFile() override {
    try {
      Close();
    } catch (const std::exception& e) {
      // A destructor must not throw; whoever needed the data durable called Close or Sync.
      MTS_LOG(ERROR) << "closing " << path_ << " failed: " << e.what();
    }
  }

  void Append(std::string_view data) override {
    CheckOpen();
    if (std::fwrite(data.data(), 1, data.size(), file_) != data.size()) {
      ThrowFileSystemError(path_, errno);
    }
  }

  void Flush() override {
    CheckOpen();
    if (std::fflush(file_) != 0) ThrowFileSystemError(path_, errno);
  }

  void Sync() override {
    Flush();
    if (::fsync(fileno(file_)) != 0) ThrowFileSystemError(path_, errno);
  }

  void Close() override {
    if (file_ == nullptr) return;
    std::FILE* file = file_;
    file_ = nullptr;  // Closed from here on, whatever fclose reports.
    if (std::fclose(file) != 0) ThrowFileSystemError(path_, errno);
  }

 private:
  void CheckOpen() const {
    if (file_ == nullptr) throw FailedPreconditionError(path_ + " is closed");
  }

  const std::string path_;
  std::FILE* file_;  // Null once closed.
};

class PosixFileSystem : public FileSystem {
 public:
  std::string ReadFile(const std::string& path) override {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) ThrowFileSystemError(path, errno);
    // Read straight into the string, sized from fstat: a checkpoint of many megabytes is
    // then read once, not copied through a buffer and regrown. The loop still runs to the
    // end of the file, so a file that grew meanwhile is read whole.
    std::string contents;
    struct stat info;
    size_t size = 0;
    if (::fstat(fd, &info) == 0 && info.st_size > 0) {
      contents.resize(static_cast<size_t>(info.st_size) + 1);
    } else {
      contents.resize(64 * 1024);
    }
    for (;;) {
      if (size == contents.size()) contents.resize(contents.size() * 2);
      const ssize_t n = ::read(fd, &contents[size], contents.size() - size);
      if (n == 0) break;
      if (n < 0) {
        if (errno == EINTR) continue;
        const int err = errno;
        ::close(fd);
        // The file was there and then could not be read: what we have is incomplete.
        if (err == EISDIR) ThrowFileSystemError(path, err);
        throw DataLossError(path + "; read failed: " + std::strerror(err));
      }
      size += static_cast<size_t>(n);
    }
    ::close(fd);
    contents.resize(size);
    return contents;
  }

  // [mts:write-file-atomically]
  // Why a crash leaves the old file or the new one, never a torn one:
  //   1. The new contents go to a fresh temporary file beside `path`; `path` is untouched,
  //      so a crash now leaves the old file (and a stray temporary, which readers ignore).
  //   2. fsync(temp) puts the new bytes on disk *before* any name points at them. Without
  //      it the rename could reach the disk first, and a crash would leave `path` naming a
  //      file whose data never arrived: empty or torn.
  //   3. rename(temp, path) is atomic in POSIX: any reader, and the disk after a crash, sees
  //      `path` as either the old inode or the new one.
  //   4. fsync(directory) makes the rename itself durable; until then a crash may undo it
  //      (leaving the old file, which is still a whole file).
  // The temporary is on the same file system as `path` (same directory), as rename needs.
  void WriteFileAtomically(const std::string& path, std::string_view contents) override {
    static std::atomic<uint64_t> counter{0};
    std::string temp;
    int fd = -1;
    // O_EXCL never reuses a leftover temporary (say, from a crashed process with our pid).
    while (fd < 0) {
      temp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
      fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
      if (fd < 0 && errno != EEXIST) ThrowFileSystemError(temp, errno);
    }
    try {
      // Plain write(2) has no user-space buffer, so there is nothing to fflush before fsync.
      WriteAll(fd, contents, temp);
      if (::fsync(fd) != 0) ThrowFileSystemError(temp, errno);
      const int fd_to_close = fd;
      fd = -1;
      if (::close(fd_to_close) != 0) ThrowFileSystemError(temp, errno);
      if (::rename(temp.c_str(), path.c_str()) != 0)
        ThrowFileSystemError(temp + " -> " + path, errno);
    } catch (...) {
      if (fd >= 0) ::close(fd);
      ::unlink(temp.c_str());
      throw;
    }
    SyncDirectory(Dirname(path));
  }
  // [mts:write-file-atomically-end]

  std::unique_ptr<WritableFile> NewWritableFile(const std::string& path) override {
    return Open(path, "we");  // "e": O_CLOEXEC.
  }

  std::unique_ptr<WritableFile> NewAppendableFile(const std::string& path) override {
    return Open(path, "ae");
  }

  bool Exists(const std::string& path) override {
    struct stat info;
    return ::stat(path.c_str(), &info) == 0;
  }

  std::vector<std::string> ListDirectory(const std::string& dir) override {
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) ThrowFileSystemError(dir, errno);
    std::vector<std::string> names;
    while (const dirent* entry = ::readdir(d)) {
      const std::string name = entry->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    ::closedir(d);
    std::sort(names.begin(), names.end());
    return names;
  }

  void DeleteFile(const std::string& path) override {
    if (::unlink(path.c_str()) != 0) ThrowFileSystemError(path, errno);
  }

  void RenameFile(const std::string& from, const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) ThrowFileSystemError(from + " -> " + to, errno);
  }

  void CreateDirectories(const std::string& dir) override {
    // Create each prefix ending before a '/', then `dir` itself: "a/b/c" makes a, a/b, a/b/c.
    for (size_t end = dir.find('/', 1);; end = dir.find('/', end + 1)) {
      const std::string prefix = dir.substr(0, end);
      if (!prefix.empty() && ::mkdir(prefix.c_str(), 0755) != 0) {
        const int err = errno;
        struct stat info;
        const bool is_dir = ::stat(prefix.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
        if (err != EEXIST) ThrowFileSystemError(prefix, err);
        if (!is_dir) {
          throw FailedPreconditionError(prefix +
                                        "; exists and is not a directory (remove the file or "
                                        "choose another path)");
        }
      }
      if (end == std::string::npos) break;
    }
  }

  uint64_t FileSize(const std::string& path) override {
    struct stat info;
    if (::stat(path.c_str(), &info) != 0) ThrowFileSystemError(path, errno);
    return static_cast<uint64_t>(info.st_size);
  }

  std::vector<std::string> GetMatchingPaths(const std::string& pattern) override {
    glob_t matches;
    // Without GLOB_ERR an unreadable or missing directory simply matches nothing, as in TF.
    const int result = ::glob(pattern.c_str(), 0, nullptr, &matches);
    std::vector<std::string> paths;
    if (result == 0) paths.assign(matches.gl_pathv, matches.gl_pathv + matches.gl_pathc);
    globfree(&matches);
    if (result == GLOB_NOSPACE) throw ResourceExhaustedError(pattern + "; glob out of memory");
    // glob sorts by the locale's collation; sort bytewise so the order is the same everywhere.
    std::sort(paths.begin(), paths.end());
    return paths;
  }

 private:
  static std::unique_ptr<WritableFile> Open(const std::string& path, const char* mode) {
    std::FILE* file = std::fopen(path.c_str(), mode);
    if (file == nullptr) ThrowFileSystemError(path, errno);
    return std::make_unique<PosixWritableFile>(path, file);
  }
};

}  // namespace

FileSystem* DefaultFileSystem() {
  static FileSystem* const fs = new PosixFileSystem;  // Leaked: usable during exit.
  return fs;
}

std::string JoinPath(std::string_view a, std::string_view b) {
  if (a.empty()) return std::string(b);
  if (b.empty()) return std::string(a);
  while (a.size() > 1 && a.back() == '/') a.remove_suffix(1);
  while (!b.empty() && b.front() == '/') b.remove_prefix(1);
  std::string joined(a);
  if (joined.back() != '/') joined += '/';
  joined += b;
  return joined;
}

std::string Dirname(std::string_view path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return "";
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

std::string Basename(std::string_view path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return std::string(path);
  return std::string(path.substr(slash + 1));
}

}  // namespace mts
