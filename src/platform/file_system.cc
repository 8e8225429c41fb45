// file_system.cc: what every FileSystem shares: the errors a failed system call raises, the
// defaults of the interface's optional calls, and the path helpers. The POSIX file system
// itself, DefaultFileSystem(), is in posix_file_system.cc.
#include "src/platform/file_system.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <utility>

#include "src/platform/errors.h"

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

// EFBIG: a write past this process's file-size limit (`ulimit -f`), or past the largest
// file the file system holds. Once SIGXFSZ is ignored (as Python ignores it) the write
// fails with EFBIG instead of the signal killing the process; say which limit it was.
std::string FileSizeLimitAdvice() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_FSIZE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) {
    return " (the file system's largest file: write to another file system)";
  }
  return " (this process may write files of at most " + std::to_string(limit.rlim_cur) +
         " bytes, `ulimit -f` " + std::to_string(limit.rlim_cur / 1024) +
         ": raise the limit, e.g. ulimit -f unlimited; files written whole before are intact)";
}

}  // namespace

void ThrowFileSystemError(const std::string& context, int err) {
  const std::string message =
      context + "; " + std::strerror(err) + (err == EFBIG ? FileSizeLimitAdvice() : AdviceFor(err));
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

// True if `path` is an existing directory.
bool IsDirectory(const std::string& path) {
  struct stat info;
  return ::stat(path.empty() ? "." : path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

}  // namespace

// ENOENT usually means a missing directory, but when the directory is there the file system
// itself refuses new names (/proc, /sys): "create the directory first" would then send the
// user the wrong way.
void ThrowCreationError(const std::string& path, int err) {
  const std::string dir = Dirname(path);
  if (err == ENOENT && IsDirectory(dir)) {
    throw NotFoundError(path + "; " + std::strerror(err) + " (the directory " +
                        (dir.empty() ? "." : dir) +
                        " exists but cannot hold new files: it is on a special file system "
                        "such as /proc or /sys; choose a directory on an ordinary disk)");
  }
  ThrowFileSystemError(path, err);
}

// ---- The defaults of the optional calls, for file systems that do not implement them ----

void FileSystem::WritePiecesAtomically(const std::string& path,
                                       const std::vector<std::string_view>& pieces) {
  std::string contents;
  size_t size = 0;
  for (std::string_view piece : pieces) size += piece.size();
  contents.reserve(size);
  for (std::string_view piece : pieces) contents += piece;
  WriteFileAtomically(path, contents);
}

namespace {

// Reads served from a copy of the whole file.
class InMemoryRandomAccessFile : public RandomAccessFile {
 public:
  explicit InMemoryRandomAccessFile(std::string contents) : contents_(std::move(contents)) {}
  uint64_t Read(uint64_t offset, uint64_t n, char* dst) const override {
    if (offset >= contents_.size()) return 0;
    const uint64_t got = std::min<uint64_t>(n, contents_.size() - offset);
    if (got > 0) std::memcpy(dst, contents_.data() + offset, static_cast<size_t>(got));
    return got;
  }

 private:
  const std::string contents_;
};

}  // namespace

std::unique_ptr<RandomAccessFile> FileSystem::NewRandomAccessFile(const std::string& path) {
  return std::make_unique<InMemoryRandomAccessFile>(ReadFile(path));
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

std::string AbsolutePath(std::string_view path) {
  std::string full(path);
  if (full.empty() || full[0] != '/') {
    std::vector<char> cwd(PATH_MAX);
    if (::getcwd(cwd.data(), cwd.size()) == nullptr) {
      throw UnknownError(std::string("getcwd failed; ") + std::strerror(errno));
    }
    full = JoinPath(cwd.data(), full);
  }
  std::vector<std::string_view> parts;
  std::string_view rest(full);
  while (!rest.empty()) {
    const size_t slash = rest.find('/');
    const std::string_view part = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
  }
  std::string normal;
  for (std::string_view part : parts) (normal += '/') += part;
  return normal.empty() ? "/" : normal;
}

namespace {

// The names of `path` made absolute (against the working directory, as it is written), with
// "" and "." left out but ".." kept: the steps the kernel takes, before it follows links.
std::vector<std::string> NamesAsWritten(std::string_view path) {
  std::string full(path);
  if (full.empty() || full[0] != '/') full = JoinPath(AbsolutePath("."), full);
  std::vector<std::string> names;
  for (size_t start = 0; start < full.size();) {
    size_t end = full.find('/', start);
    if (end == std::string::npos) end = full.size();
    const std::string name = full.substr(start, end - start);
    if (!name.empty() && name != ".") names.push_back(name);
    start = end + 1;
  }
  return names;
}

}  // namespace

// [mts:is-in-directory]
bool IsInDirectory(std::string_view path, std::string_view dir) {
  const std::string name = Basename(path);
  if (name.empty() || name == "." || name == "..") return false;
  const std::vector<std::string> names = NamesAsWritten(path);
  if (std::find(names.begin(), names.end(), "..") == names.end()) {
    return Dirname(AbsolutePath(path)) == AbsolutePath(dir);
  }
  // The kernel resolves ".." after a symbolic link in the link's target: DIR/sub/../x, with
  // DIR/sub a link to /else/where, is /else/x. Collapsing ".." as text would call it DIR/x.
  // So a path with ".." is inside only if it spells out `dir` as written, then one name.
  std::vector<std::string> expected = NamesAsWritten(dir);
  expected.push_back(name);
  return names == expected;
}
// [mts:is-in-directory-end]

}  // namespace mts
