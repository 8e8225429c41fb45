// checkpoint_file.h: mts's checkpoint file: named tensors in one self-checking file.
//
//   Chief / Worker         the SessionManager asks the Saver to restore; a hook to save
//   Saver (saver.h)        reads variables through the Session, writes them with
//   checkpoint_file.h  <-- this file: the bytes on disk (written in checkpoint_writer.cc,
//                          read in checkpoint_reader.cc)
//   FileSystem             platform: WritePiecesAtomically, NewRandomAccessFile
//
// WriteCheckpoint writes the whole file under a temporary name, fsyncs and renames it.
// CheckpointReader checks the header and index (its length, its checksum, every count,
// offset and length against the bytes really there) before it allocates for or returns
// anything, and each tensor's checksum when it reads the tensor; any damage raises
// DataLossError naming the file (and the tensor). The byte layout is below.
//
// Thread safety: WriteCheckpoint and a CheckpointReader's const methods may be called from
// any number of threads.
//
// Example:
//   WriteCheckpoint(*fs, "/tmp/run/model.ckpt-100", {{"w", w_value}, {"global_step", step}});
//   CheckpointReader reader(*fs, "/tmp/run/model.ckpt-100");
//   Tensor w = reader.Read("w");        // verified against its checksum
//
// TensorFlow: tensor_bundle (tensorflow/core/util/tensor_bundle/) and py_checkpoint_reader;
// mts keeps one file per checkpoint, as TensorFlow's V1 format did.
#ifndef MTS_SRC_02_CHIEF_WORKER_CHECKPOINT_CHECKPOINT_FILE_H_
#define MTS_SRC_02_CHIEF_WORKER_CHECKPOINT_CHECKPOINT_FILE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "src/01_session/tensor.h"
#include "src/platform/file_system.h"

namespace mts {

// The byte layout (all integers little-endian; "crc" means MaskCrc(Crc32c(...)), crc32c.h):
//
// [mts:checkpoint-layout]
//   offset  size  field
//   ------  ----  ------------------------------------------------------------------------
//   0       8     magic "MTSCKPT\0"
//   8       4     u32 format version, 1
//   12      4     u32 number of tensors N
//   16      8     u64 index size I in bytes
//   24      8     u64 file size F in bytes (the whole file, this header included)
//   32      I     the index: N entries, sorted by name, each
//                   u32 name length, name bytes (UTF-8, non-empty, unique)
//                   u8  dtype (TensorFlow's DataType numbers: float 1, double 2, int32 3,
//                       string 7, int64 9, bool 10)
//                   u8  rank R (at most 32)
//                   R x i64 dimensions (each >= 0)
//                   u64 data offset (from the start of the data section)
//                   u64 data length
//                   u32 crc of the tensor's data bytes
//   32+I    4     u32 crc of bytes [0, 32+I): header and index together
//   36+I    F-36-I  data section: the tensors' data back to back, in index order, each
//                   float/double/int32/int64: the elements, row-major, little-endian
//                   bool:   one byte per element, 0 or 1
//                   string: per element a u64 byte length, then the bytes
// [mts:checkpoint-layout-end]

/// The first eight bytes of every checkpoint file.
inline constexpr char kCheckpointMagic[8] = {'M', 'T', 'S', 'C', 'K', 'P', 'T', '\0'};
/// The format version this code writes and the only one it reads.
inline constexpr uint32_t kCheckpointFormatVersion = 1;

/// A named tensor to save.
using NamedTensor = std::pair<std::string, Tensor>;

/// What the index says about one stored tensor.
struct CheckpointTensorInfo {
  std::string name;   ///< The variable's name, e.g. "dense/w".
  DataType dtype;     ///< Its element type.
  TensorShape shape;  ///< Its (fully defined) shape.
};

/// Writes `tensors` to a checkpoint file at `path`, atomically: after a crash at any moment
/// `path` holds its previous contents (or nothing) or the complete new checkpoint.
/// Tensors are stored sorted by name. Each tensor's bytes are written from its own buffer
/// (FileSystem::WritePiecesAtomically), not copied into a file-sized buffer first; the
/// tensors must not change during the call (a Saver's are its own snapshot).
/// \throws InvalidArgumentError if a name is empty or repeated, or a tensor is uninitialized.
/// \throws OpError from the file system (NotFoundError if the directory is missing).
/// `path` is unchanged after any error.
void WriteCheckpoint(FileSystem& fs, const std::string& path,
                     const std::vector<NamedTensor>& tensors);

/// The checkpoint files directly in `dir`: files named "<prefix>-<step>" (a Saver's names)
/// that start with the checkpoint magic, ordered by step, oldest first (equal steps by
/// name). Only the first 8 bytes of each are read; whether a file is whole is for its
/// reader to find out. Empty if `dir` is missing or holds none.
std::vector<std::string> FindCheckpointFiles(FileSystem& fs, const std::string& dir);

/// The bytes WriteCheckpoint writes, for tests and tools that want to look at them.
std::string SerializeCheckpoint(const std::vector<NamedTensor>& tensors);

/// Reads a checkpoint file: its index at construction, tensors on demand.
///
/// Lifecycle: 1. construct, which opens the file, reads its header and index and verifies
/// them; 2. look at `tensors()`; 3. `Read` each tensor wanted, which reads that tensor's
/// bytes from the file into the new tensor's own buffer and verifies their checksum there.
/// The file stays open until the reader is destroyed, so a checkpoint that a newer save
/// replaces meanwhile (by rename) is still read whole, from the file that was opened.
/// Thread safety: const methods may be called concurrently.
///
/// TensorFlow: tf.train.NewCheckpointReader / CheckpointReader.
class CheckpointReader {
 public:
  /// Opens the file at `path` and verifies its header and index. The header is checked
  /// before the index is read, so a file that is not a checkpoint is refused after 32 bytes
  /// however large it is.
  /// \throws NotFoundError if there is no file.
  /// \throws FailedPreconditionError if it is not a regular file (a FIFO, a device).
  /// \throws DataLossError naming the file if it is not a checkpoint, is truncated, or its
  ///   header or index is corrupt.
  CheckpointReader(FileSystem& fs, const std::string& path);

  /// The file read.
  const std::string& path() const { return path_; }
  /// Every stored tensor's name, dtype and shape, sorted by name.
  const std::vector<CheckpointTensorInfo>& tensors() const { return infos_; }
  /// True if a tensor named `name` is stored.
  bool Has(const std::string& name) const;
  /// The index entry of `name`. \throws NotFoundError naming the tensor and file if absent.
  const CheckpointTensorInfo& Info(const std::string& name) const;

  /// The stored value of `name`, read from the file now, after verifying its checksum.
  /// \throws NotFoundError if absent.
  /// \throws DataLossError naming the file and tensor if its data is corrupt, or the file
  ///   was cut short since it was opened.
  /// Never returns a value that differs from what was written.
  Tensor Read(const std::string& name) const;

 private:
  struct Extent {
    uint64_t offset;  // From the start of the file.
    uint64_t length;
    uint32_t masked_crc;
  };
  // Opens file_ and returns its header, index and their checksum, after checking the
  // header's magic and recorded size against the file (`size`, set here), so that only a
  // file that looks like a checkpoint of that size has its index read.
  std::string OpenAndReadHead(FileSystem& fs, uint64_t* size);
  // Where the parts of the file lie, as its verified header says.
  struct Layout {
    uint32_t count;       // Tensors in the index.
    uint64_t index_end;   // Where the index ends and its checksum starts.
    uint64_t data_start;  // Where the data section starts.
    uint64_t data_size;   // Its length: to the end of the file.
  };
  // Checks the header in `head` (from OpenAndReadHead) against the file's `size` and the
  // checksum of header and index; returns the layout they describe.
  Layout VerifyHeader(const std::string& head, uint64_t size) const;
  // Reads and checks every index entry of `head` into infos_ and extents_.
  void ReadIndex(const std::string& head, const Layout& layout);
  // Reads the entry at `*pos` of the index in `file`, advancing `*pos`; its data must start
  // at `*next_offset`, which is advanced past it.
  void ReadIndexEntry(const char* file, const Layout& layout, uint64_t* pos,
                      uint64_t* next_offset);
  // Raises unless `length` data bytes are exactly what `dims` of `dtype` take.
  void CheckLengthFitsShape(const std::string& name, DataType dtype,
                            const std::vector<int64_t>& dims, uint64_t length) const;
  // Reads the bytes of `extent` (of tensor `name`) into `dst` and verifies their checksum.
  void ReadVerified(const std::string& name, const Extent& extent, char* dst) const;
  size_t IndexOf(const std::string& name) const;
  [[noreturn]] void Corrupt(const std::string& what) const;
  [[noreturn]] void CorruptData(const std::string& name, const std::string& what) const;

  std::string path_;
  std::unique_ptr<RandomAccessFile> file_;  // Open from construction to destruction.
  std::vector<CheckpointTensorInfo> infos_;
  std::vector<Extent> extents_;  // Parallel to infos_.
};

}  // namespace mts

#endif  // MTS_SRC_02_CHIEF_WORKER_CHECKPOINT_CHECKPOINT_FILE_H_
