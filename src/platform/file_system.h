// file_system.h: how mts touches files: checkpoints, the `checkpoint` state file, event files.
//
// Platform, below every stage: stages take a FileSystem* (DefaultFileSystem() unless a test
// passes its own). Errors carry codes chosen from errno as TensorFlow's are (NotFoundError,
// PermissionDeniedError, ResourceExhaustedError for a full disk, DataLossError for a failed
// read, UnknownError) and name the file. After a crash at any moment, a file written by
// WriteFileAtomically or WritePiecesAtomically holds its old or its new contents, whole.
// Thread safety: DefaultFileSystem() may be used from any thread; a WritableFile belongs to
// one thread at a time.
//
// Example: fs->WriteFileAtomically(JoinPath(dir, "checkpoint"), "model_checkpoint_path: ...");
//
// TensorFlow: tensorflow/core/platform/file_system.h, env.h, path.h.
#ifndef MTS_SRC_PLATFORM_FILE_SYSTEM_H_
#define MTS_SRC_PLATFORM_FILE_SYSTEM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mts {

/// A file open for writing at its end: the event writer's output.
///
/// Lifecycle: 1. get one from FileSystem::NewWritableFile or NewAppendableFile; 2. Append any
/// number of times, Flush to hand data to the OS, Sync to make it durable; 3. Close, or
/// destroy it (which closes and never throws). One thread at a time.
class WritableFile {
 public:
  /// Closes the file if still open; never throws (a failure is logged).
  virtual ~WritableFile() = default;

  /// Appends `data` at the end of the file (possibly buffered in memory).
  /// \throws OpError if the write fails, FailedPreconditionError after Close.
  virtual void Append(std::string_view data) = 0;
  /// Hands buffered data to the operating system (it survives this process crashing).
  /// \throws OpError on failure, FailedPreconditionError after Close.
  virtual void Flush() = 0;
  /// Flushes, then makes the data durable (it survives the machine crashing).
  /// \throws OpError on failure, FailedPreconditionError after Close.
  virtual void Sync() = 0;
  /// Flushes and closes. The file is closed afterwards even if this throws; a second Close
  /// does nothing. \throws OpError if the final flush or close fails.
  virtual void Close() = 0;
};

/// A file open for reading at any offset: a checkpoint reader fetches each tensor's bytes
/// straight into that tensor's buffer, instead of holding the whole file in memory.
///
/// Lifecycle: get one from FileSystem::NewRandomAccessFile, Read any number of times,
/// destroy it (which closes the file). Thread safety: Read may be called from any number of
/// threads at once (it keeps no file position).
///
/// TensorFlow: tensorflow::RandomAccessFile (tensorflow/core/platform/file_system.h).
class RandomAccessFile {
 public:
  /// Closes the file; never throws.
  virtual ~RandomAccessFile() = default;

  /// Reads up to `n` bytes starting at byte `offset` of the file into `dst`, and returns how
  /// many it read: `n`, or fewer only where the file ends.
  /// \throws DataLossError naming the file if reading fails part-way.
  virtual uint64_t Read(uint64_t offset, uint64_t n, char* dst) const = 0;
};

/// The file operations mts needs, on paths. Implemented for POSIX by DefaultFileSystem().
class FileSystem {
 public:
  virtual ~FileSystem() = default;

  /// The whole contents of the regular file at `path`.
  /// \throws NotFoundError naming the file if it does not exist; FailedPreconditionError if
  ///         it is not a regular file (a directory, a FIFO, a device such as /dev/zero,
  ///         which could block or never end); DataLossError if reading fails part-way;
  ///         another OpError (PermissionDeniedError, ...) otherwise.
  virtual std::string ReadFile(const std::string& path) = 0;

  /// At most the first `max_bytes` bytes of the regular file at `path` (fewer if the file
  /// is shorter): a reader checks a header before it trusts the file's size enough to read
  /// all of it. \throws as ReadFile.
  virtual std::string ReadFilePrefix(const std::string& path, uint64_t max_bytes) = 0;

  /// Replaces the file at `path` with `contents` so that, even if the machine crashes, the
  /// file afterwards holds the old contents or the new, never a torn mixture. Writes
  /// `path.tmp.<unique>`, syncs it, renames it over `path` and syncs the directory.
  /// \throws OpError on failure; `path` is then unchanged and the temporary file removed.
  virtual void WriteFileAtomically(const std::string& path, std::string_view contents) = 0;

  /// WriteFileAtomically of the concatenation of `pieces`, with the same promise, written
  /// from where each piece lies: a checkpoint is its header followed by every tensor's
  /// bytes, and gathering them into one string first would copy (and, for a large model,
  /// fault in fresh pages for) every byte once more than the disk needs. DefaultFileSystem()
  /// hands all pieces to writev(2); this default concatenates them and calls
  /// WriteFileAtomically, so a file system that only implements that one stays correct.
  /// \throws as WriteFileAtomically.
  virtual void WritePiecesAtomically(const std::string& path,
                                     const std::vector<std::string_view>& pieces);

  /// The regular file at `path`, open for reads at any offset.
  /// DefaultFileSystem() reads with pread(2); this default serves the reads from a copy of
  /// ReadFile(path) taken now (correct for in-memory file systems, but a whole copy).
  /// \throws as ReadFile: NotFoundError, FailedPreconditionError if not a regular file, ...
  virtual std::unique_ptr<RandomAccessFile> NewRandomAccessFile(const std::string& path);

  /// A new, empty file at `path` (truncated if it exists), open for writing.
  /// \throws OpError naming the file if it cannot be created (NotFoundError: no directory).
  virtual std::unique_ptr<WritableFile> NewWritableFile(const std::string& path) = 0;

  /// A new, empty file at `path`, which must not exist yet, open for writing: unlike
  /// NewWritableFile it never truncates a file, even one another process made a moment
  /// before (the check and the creation are one system call, open with O_EXCL).
  /// \throws AlreadyExistsError naming `path` if anything is there; another OpError naming
  ///   the file if it cannot be created.
  virtual std::unique_ptr<WritableFile> NewExclusiveFile(const std::string& path) = 0;

  /// The file at `path` opened for writing at its end, created empty if missing.
  /// \throws OpError naming the file if it cannot be opened.
  virtual std::unique_ptr<WritableFile> NewAppendableFile(const std::string& path) = 0;

  /// Whether anything (file or directory) exists at `path`. Never throws.
  virtual bool Exists(const std::string& path) = 0;

  /// The names (not paths) of the entries of directory `dir`, sorted, without "." and "..".
  /// \throws NotFoundError naming `dir` if it does not exist.
  virtual std::vector<std::string> ListDirectory(const std::string& dir) = 0;

  /// Removes the file at `path`. \throws NotFoundError naming it if it does not exist.
  virtual void DeleteFile(const std::string& path) = 0;

  /// Renames `from` to `to`, atomically replacing `to` if it exists.
  /// \throws NotFoundError if `from` does not exist; another OpError otherwise.
  virtual void RenameFile(const std::string& from, const std::string& to) = 0;

  /// Creates directory `dir` and any missing parents (`mkdir -p`); does nothing if it exists.
  /// \throws FailedPreconditionError if a component exists and is not a directory;
  ///   InvalidArgumentError, before creating anything, if the path or one of its names is
  ///   longer than the system allows; another OpError naming the component at fault.
  ///   After an error no directory this call created is left behind.
  virtual void CreateDirectories(const std::string& dir) = 0;

  /// The size of the file at `path` in bytes. \throws NotFoundError naming it if missing.
  virtual uint64_t FileSize(const std::string& path) = 0;

  /// Cuts the file at `path` back to its first `size` bytes: a writer whose write failed
  /// part-way (a full disk) removes the torn tail and goes on after its last whole record.
  /// \pre `size` is at most the file's size. \throws NotFoundError naming the file if it
  ///   is missing; another OpError if it cannot be cut (the file is then unchanged).
  virtual void TruncateFile(const std::string& path, uint64_t size) = 0;

  /// The paths matching the glob(3) `pattern` ("/tmp/run/model.ckpt-*.index"), sorted;
  /// empty when nothing matches (also when the directory is missing or unreadable).
  virtual std::vector<std::string> GetMatchingPaths(const std::string& pattern) = 0;
};

/// The POSIX file system. Never null, never destroyed.
FileSystem* DefaultFileSystem();

/// Raises the OpError a failed system call with errno `err` means, as DefaultFileSystem()
/// does: TensorFlow's code for `err` (ENOSPC: ResourceExhaustedError, EACCES:
/// PermissionDeniedError, ENOENT: NotFoundError, ...) and the message
/// "<context>; <strerror>", followed for the common errors by what to do about it. File
/// systems that simulate failures (tests' full disks) raise through it too, so they fail
/// exactly as the real one would. `context` names the path ("a -> b" for a rename).
/// \throws OpError always.
[[noreturn]] void ThrowFileSystemError(const std::string& context, int err);

/// Raises the OpError of a failed creation of the file or directory `path` with errno `err`:
/// as ThrowFileSystemError(path, err), except that ENOENT in a directory that exists says
/// the directory cannot hold new files (a special file system such as /proc) instead of
/// advising to create it. \throws OpError always.
[[noreturn]] void ThrowCreationError(const std::string& path, int err);

/// Joins two path parts with exactly one '/' between them: JoinPath("/a/", "/b") == "/a/b".
/// An empty part is dropped: JoinPath("", "b") == "b".
std::string JoinPath(std::string_view a, std::string_view b);

/// Everything before the last '/': Dirname("/a/b") == "/a", Dirname("/a") == "/",
/// Dirname("b") == "".
std::string Dirname(std::string_view path);

/// Everything after the last '/': Basename("/a/b") == "b", Basename("b") == "b",
/// Basename("/a/") == "".
std::string Basename(std::string_view path);

/// `path` made absolute against the working directory and normalised lexically, as
/// Python's os.path.abspath does: no "", "." or ".." component is left, and no trailing
/// '/' ("a/./b/../c" in /tmp is "/tmp/a/c"). Symbolic links are not resolved.
/// \throws UnknownError if the working directory cannot be read.
std::string AbsolutePath(std::string_view path);

/// True if `path` names an entry directly inside directory `dir` (compared as AbsolutePath
/// forms): IsInDirectory("/run/model.ckpt-5", "/run/") is true,
/// IsInDirectory("/old/model.ckpt-5", "/run") and IsInDirectory("/run/a/b", "/run") false.
/// A `path` with a ".." in it is inside only if it is `dir` as written followed by one name
/// ("../run/model.ckpt-5" in "../run"): the kernel resolves "/run/sub/../x", with sub a
/// symbolic link, in the link's target, so it is not "/run/x" (false). A path whose last
/// name is "", "." or ".." is never inside.
bool IsInDirectory(std::string_view path, std::string_view dir);

}  // namespace mts

#endif  // MTS_SRC_PLATFORM_FILE_SYSTEM_H_
