// posix_file_system.cc: DefaultFileSystem(), the FileSystem of a POSIX system: reads that
// refuse anything but a regular file, the atomic write (temporary, fsync, rename, fsync of
// the directory), stdio-buffered writable files, directories. The errors it raises and the
// path helpers are in file_system.cc.
#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <limits>
#include <utility>

#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "src/platform/logging.h"

namespace mts {
namespace {

// Writes every piece, in order, from where it lies. writev(2) takes at most IOV_MAX pieces
// per call, may write less than asked (stopping inside a piece), or be interrupted; so the
// loop hands it the pieces not yet written, the first one trimmed by what went out already.
void WriteAll(int fd, const std::vector<std::string_view>& pieces, const std::string& path) {
  std::vector<iovec> iov;
  iov.reserve(pieces.size());
  for (std::string_view piece : pieces) {
    if (!piece.empty()) iov.push_back({const_cast<char*>(piece.data()), piece.size()});
  }
  size_t first = 0;  // iov[first..] is still to write.
  while (first < iov.size()) {
    const int count = static_cast<int>(std::min<size_t>(iov.size() - first, IOV_MAX));
    ssize_t n = ::writev(fd, &iov[first], count);
    if (n < 0) {
      if (errno == EINTR) continue;
      ThrowFileSystemError(path, errno);
    }
    // Skip the pieces written whole; trim the one the write stopped in.
    while (first < iov.size() && static_cast<size_t>(n) >= iov[first].iov_len) {
      n -= static_cast<ssize_t>(iov[first].iov_len);
      ++first;
    }
    if (n > 0) {
      iov[first].iov_base = static_cast<char*>(iov[first].iov_base) + n;
      iov[first].iov_len -= static_cast<size_t>(n);
    }
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

// Makes the directory `dir` unless one is there already; true if this call made it.
bool MakeDirectory(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0755) == 0) return true;
  const int err = errno;
  if (err != EEXIST) ThrowCreationError(dir, err);
  struct stat info;
  if (::stat(dir.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    throw FailedPreconditionError(dir +
                                  "; exists and is not a directory (remove the file or choose "
                                  "another path)");
  }
  return false;
}

// Opens `path` for reading, refusing anything but a regular file. O_NONBLOCK keeps the open
// of a FIFO from waiting for a writer; the check then refuses it, a device (/dev/zero, which
// never ends) or a directory before a single byte is read. Returns the descriptor and size.
std::pair<int, uint64_t> OpenRegularFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) ThrowFileSystemError(path, errno);
  struct stat info;
  if (::fstat(fd, &info) != 0) {
    const int err = errno;
    ::close(fd);
    ThrowFileSystemError(path, err);
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    const char* kind = S_ISDIR(info.st_mode)    ? "a directory"
                       : S_ISFIFO(info.st_mode) ? "a FIFO"
                       : S_ISCHR(info.st_mode)  ? "a character device"
                       : S_ISBLK(info.st_mode)  ? "a block device"
                       : S_ISSOCK(info.st_mode) ? "a socket"
                                                : "not a regular file";
    throw FailedPreconditionError(path + "; is " + kind +
                                  ", not a regular file (remove it or point to the real file)");
  }
  // Reads of a regular file never block; clear the flag so they behave as usual.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return {fd, static_cast<uint64_t>(info.st_size)};
}

// Reads from `fd` into `contents` until the end of the file or `limit` bytes; closes `fd`.
std::string ReadUpTo(int fd, const std::string& path, uint64_t size_hint, uint64_t limit) {
  // Read straight into the string, sized from fstat: a checkpoint of many megabytes is then
  // read once, not copied through a buffer and regrown. The loop still runs to the end of
  // the file (or the limit), so a file that grew meanwhile is read whole.
  std::string contents;
  contents.resize(
      static_cast<size_t>(std::min<uint64_t>(size_hint > 0 ? size_hint + 1 : 64 * 1024, limit)));
  size_t size = 0;
  while (size < limit) {
    if (size == contents.size()) {
      contents.resize(static_cast<size_t>(std::min<uint64_t>(contents.size() * 2, limit)));
    }
    const ssize_t n = ::read(fd, &contents[size], contents.size() - size);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      // The file was there and then could not be read: what we have is incomplete.
      throw DataLossError(path + "; read failed: " + std::strerror(err));
    }
    size += static_cast<size_t>(n);
  }
  ::close(fd);
  contents.resize(size);
  return contents;
}

// A RandomAccessFile over a descriptor: pread(2) needs no shared file position, so reads
// from several threads do not disturb each other.
class PosixRandomAccessFile : public RandomAccessFile {
 public:
  PosixRandomAccessFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixRandomAccessFile() override { ::close(fd_); }

  uint64_t Read(uint64_t offset, uint64_t n, char* dst) const override {
    uint64_t done = 0;
    while (done < n) {
      // One pread reads at most about 2 GiB on Linux; ask for no more than SSIZE_MAX.
      const size_t want =
          static_cast<size_t>(std::min<uint64_t>(n - done, std::numeric_limits<ssize_t>::max()));
      const ssize_t got = ::pread(fd_, dst + done, want, static_cast<off_t>(offset + done));
      if (got == 0) break;  // The end of the file.
      if (got < 0) {
        if (errno == EINTR) continue;
        // The file was there and then could not be read: what we have is incomplete.
        throw DataLossError(path_ + "; read failed: " + std::strerror(errno));
      }
      done += static_cast<uint64_t>(got);
    }
    return done;
  }

 private:
  const std::string path_;
  const int fd_;
};

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
    const auto [fd, size] = OpenRegularFile(path);
    return ReadUpTo(fd, path, size, std::numeric_limits<uint64_t>::max());
  }

  std::string ReadFilePrefix(const std::string& path, uint64_t max_bytes) override {
    const auto [fd, size] = OpenRegularFile(path);
    return ReadUpTo(fd, path, std::min(size, max_bytes), max_bytes);
  }

  std::unique_ptr<RandomAccessFile> NewRandomAccessFile(const std::string& path) override {
    const int fd = OpenRegularFile(path).first;
    return std::make_unique<PosixRandomAccessFile>(path, fd);
  }

  // [mts:write-file-atomically]
  // Why a crash leaves the old file or the new one, never a torn one:
  //   1. The new contents go to a fresh temporary file beside `path` (each piece written
  //      from where it lies, by writev); `path` is untouched, so a crash now leaves the
  //      old file (and a stray temporary, which readers ignore).
  //   2. fsync(temp) puts the new bytes on disk *before* any name points at them. Without
  //      it the rename could reach the disk first, and a crash would leave `path` naming a
  //      file whose data never arrived: empty or torn.
  //   3. rename(temp, path) is atomic in POSIX: any reader, and the disk after a crash, sees
  //      `path` as either the old inode or the new one.
  //   4. fsync(directory) makes the rename itself durable; until then a crash may undo it
  //      (leaving the old file, which is still a whole file).
  // The temporary is on the same file system as `path` (same directory), as rename needs.
  void WritePiecesAtomically(const std::string& path,
                             const std::vector<std::string_view>& pieces) override {
    static std::atomic<uint64_t> counter{0};
    std::string temp;
    int fd = -1;
    // O_EXCL never reuses a leftover temporary (say, from a crashed process with our pid).
    while (fd < 0) {
      temp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
      fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
      if (fd < 0 && errno != EEXIST) ThrowCreationError(temp, errno);
    }
    try {
      // writev(2) has no user-space buffer, so there is nothing to fflush before fsync.
      // A failed write names the file the caller writes, not the temporary (removed below).
      WriteAll(fd, pieces, path);
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

  void WriteFileAtomically(const std::string& path, std::string_view contents) override {
    WritePiecesAtomically(path, {contents});
  }

  std::unique_ptr<WritableFile> NewWritableFile(const std::string& path) override {
    return Open(path, "we");  // "e": O_CLOEXEC.
  }

  std::unique_ptr<WritableFile> NewAppendableFile(const std::string& path) override {
    return Open(path, "ae");
  }

  std::unique_ptr<WritableFile> NewExclusiveFile(const std::string& path) override {
    return Open(path, "wxe");  // "x": O_EXCL, so an existing file is never truncated.
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
    CheckPathLength(dir);
    // Create each prefix ending before a '/', then `dir` itself: "a/b/c" makes a, a/b, a/b/c.
    // What this call made is removed again if a later component fails, deepest first, so
    // a failed call leaves the disk as it found it.
    std::vector<std::string> created;
    try {
      for (size_t end = dir.find('/', 1);; end = dir.find('/', end + 1)) {
        const std::string prefix = dir.substr(0, end);
        if (!prefix.empty() && MakeDirectory(prefix)) created.push_back(prefix);
        if (end == std::string::npos) break;
      }
    } catch (...) {
      for (auto it = created.rbegin(); it != created.rend(); ++it) ::rmdir(it->c_str());
      throw;
    }
  }

  uint64_t FileSize(const std::string& path) override {
    struct stat info;
    if (::stat(path.c_str(), &info) != 0) ThrowFileSystemError(path, errno);
    return static_cast<uint64_t>(info.st_size);
  }

  void TruncateFile(const std::string& path, uint64_t size) override {
    if (::truncate(path.c_str(), static_cast<off_t>(size)) != 0) {
      ThrowFileSystemError(path, errno);
    }
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
    if (file == nullptr) ThrowCreationError(path, errno);
    return std::make_unique<PosixWritableFile>(path, file);
  }

  // Refuses a path the kernel would refuse, before anything is made: otherwise mkdir -p of
  // a path too long by a little creates every directory up to the limit and then fails.
  static void CheckPathLength(const std::string& path) {
    if (path.size() >= PATH_MAX) {
      throw InvalidArgumentError(path.substr(0, 60) + "...; the path has " +
                                 std::to_string(path.size()) + " characters, more than the " +
                                 std::to_string(PATH_MAX - 1) +
                                 " this system allows (choose a shorter path)");
    }
    for (size_t start = 0; start < path.size();) {
      size_t end = path.find('/', start);
      if (end == std::string::npos) end = path.size();
      if (end - start > NAME_MAX) {
        throw InvalidArgumentError(path.substr(start, 60) + "...; a name in the path has " +
                                   std::to_string(end - start) + " characters, more than the " +
                                   std::to_string(NAME_MAX) +
                                   " this system allows (choose a shorter name)");
      }
      start = end + 1;
    }
  }
};

}  // namespace

FileSystem* DefaultFileSystem() {
  static FileSystem* const fs = new PosixFileSystem;  // Leaked: usable during exit.
  return fs;
}

}  // namespace mts
