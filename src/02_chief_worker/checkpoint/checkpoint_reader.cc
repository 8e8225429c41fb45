// checkpoint_reader.cc: the reading half of the checkpoint format (checkpoint_file.h):
// finding checkpoint files, and CheckpointReader, which trusts no byte it has not checked.
#include <algorithm>
#include <cstring>
#include <limits>
#include <string_view>
#include <type_traits>

#include "src/02_chief_worker/checkpoint/checkpoint_file.h"
#include "src/02_chief_worker/checkpoint/checkpoint_layout.h"
#include "src/platform/crc32c.h"
#include "src/platform/errors.h"

namespace mts {
namespace {

using internal::DtypeFromDisk;
using internal::Get;
using internal::kHeaderCrcSize;
using internal::kHeaderSize;
using internal::kMaxRank;
using internal::StoredCrc;

// The smallest index entry: a one-byte name, dtype, rank 0, offset, length, crc.
constexpr uint64_t kMinEntrySize = 4 + 1 + 1 + 1 + 8 + 8 + 4;
// What to do about a damaged checkpoint. Checkpoints are written atomically, so damage came
// later (a disk, a copy): an older checkpoint is the way back.
constexpr char kDamagedAdvice[] =
    "Restore an earlier checkpoint (a chief restoring from a directory falls back to the "
    "newest sound one by itself)";

// Bytes per element of the fixed-size dtypes (bool is one byte on disk).
uint64_t DiskElementSize(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat:
      return 4;
    case DataType::kDouble:
      return 8;
    case DataType::kInt32:
      return 4;
    case DataType::kInt64:
      return 8;
    case DataType::kBool:
      return 1;
    case DataType::kString:
      return 0;  // Variable: a u64 length per element, then bytes.
  }
  return 0;
}

// Multiplies the dimensions, or returns false if the product exceeds `limit`. A zero
// dimension makes the product 0, but the other dimensions must still multiply without
// overflow, so that TensorShape's own arithmetic on them is safe.
bool ElementCount(const std::vector<int64_t>& dims, uint64_t limit, uint64_t* count) {
  uint64_t nonzero_product = 1;
  bool has_zero = false;
  for (int64_t d : dims) {
    if (d == 0) {
      has_zero = true;
    } else if (__builtin_mul_overflow(nonzero_product, static_cast<uint64_t>(d),
                                      &nonzero_product) ||
               nonzero_product > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return false;
    }
  }
  *count = has_zero ? 0 : nonzero_product;
  return *count <= limit;
}

}  // namespace

std::vector<std::string> FindCheckpointFiles(FileSystem& fs, const std::string& dir) {
  std::vector<std::pair<uint64_t, std::string>> found;  // (step, path)
  std::vector<std::string> names;
  try {
    names = fs.ListDirectory(dir);
  } catch (const OpError&) {
    return {};
  }
  for (const std::string& name : names) {
    const size_t dash = name.rfind('-');
    if (dash == std::string::npos || dash + 1 == name.size() || name.size() - dash - 1 > 18 ||
        name.find_first_not_of("0123456789", dash + 1) != std::string::npos) {
      continue;  // Not "<prefix>-<step>": a temporary, the state file, an event file.
    }
    const std::string path = JoinPath(dir, name);
    try {
      if (fs.ReadFilePrefix(path, sizeof(kCheckpointMagic)) !=
          std::string_view(kCheckpointMagic, sizeof(kCheckpointMagic))) {
        continue;
      }
    } catch (const OpError&) {
      continue;  // A directory, a FIFO, a file that vanished: not a checkpoint to offer.
    }
    found.emplace_back(std::stoull(name.substr(dash + 1)), path);
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> paths;
  for (auto& [step, path] : found) paths.push_back(std::move(path));
  return paths;
}

void CheckpointReader::Corrupt(const std::string& what) const {
  throw DataLossError("Checkpoint file " + path_ + " is corrupt or truncated: " + what + ". " +
                      kDamagedAdvice);
}

std::string CheckpointReader::OpenAndReadHead(FileSystem& fs, uint64_t* size) {
  // The header first: only a file that starts like a checkpoint, and is as long as its
  // header says, has its index read. A huge file of zeros (a sparse file, a disk image named
  // like a checkpoint) is refused after 32 bytes instead of filling memory; opening refuses
  // a FIFO or a device before reading anything.
  try {
    file_ = fs.NewRandomAccessFile(path_);
  } catch (const FailedPreconditionError& e) {
    Corrupt(e.what());  // Not a regular file: as unusable as a damaged one.
  }
  std::string header(kHeaderSize, '\0');
  header.resize(file_->Read(0, kHeaderSize, &header[0]));
  if (header.size() < sizeof(kCheckpointMagic) ||
      std::memcmp(header.data(), kCheckpointMagic, sizeof(kCheckpointMagic)) != 0) {
    Corrupt("it does not start with the mts checkpoint magic \"MTSCKPT\\0\"");
  }
  *size = fs.FileSize(path_);
  if (header.size() == kHeaderSize) {
    const uint64_t recorded = Get<uint64_t>(header.data() + 24);
    if (recorded != *size) {
      Corrupt("the header records " + std::to_string(recorded) + " bytes but the file has " +
              std::to_string(*size));
    }
  }
  if (*size < kHeaderSize + kHeaderCrcSize) {
    Corrupt("only " + std::to_string(*size) + " bytes, too short for a header");
  }
  // The header, the index and their checksum; the index size is bounded by the file's.
  const uint64_t index_size = Get<uint64_t>(header.data() + 16);
  if (index_size > *size - kHeaderSize - kHeaderCrcSize) {
    Corrupt("the index size " + std::to_string(index_size) + " exceeds the file");
  }
  std::string head(kHeaderSize + index_size + kHeaderCrcSize, '\0');
  if (file_->Read(0, head.size(), &head[0]) != head.size()) {
    Corrupt("the file ends inside its index (it shrank while being opened)");
  }
  return head;
}

CheckpointReader::CheckpointReader(FileSystem& fs, const std::string& path) : path_(path) {
  uint64_t size = 0;
  const std::string head = OpenAndReadHead(fs, &size);  // Header, index and their checksum.
  const Layout layout = VerifyHeader(head, size);
  ReadIndex(head, layout);
}

CheckpointReader::Layout CheckpointReader::VerifyHeader(const std::string& head,
                                                        uint64_t size) const {
  // Every field is checked against the bytes really present before it is used (`head` holds
  // the header, the index and their checksum; `size` is the whole file's).
  const char* file = head.data();
  if (std::memcmp(file, kCheckpointMagic, sizeof(kCheckpointMagic)) != 0) {
    Corrupt("it does not start with the mts checkpoint magic \"MTSCKPT\\0\"");
  }
  const uint32_t version = Get<uint32_t>(file + 8);
  const uint32_t count = Get<uint32_t>(file + 12);
  const uint64_t index_size = Get<uint64_t>(file + 16);
  const uint64_t file_size = Get<uint64_t>(file + 24);
  if (file_size != size) {
    Corrupt("the header records " + std::to_string(file_size) + " bytes but the file has " +
            std::to_string(size));
  }
  if (index_size != head.size() - kHeaderSize - kHeaderCrcSize) {
    Corrupt("the index size changed while the file was read");
  }
  const uint64_t index_end = kHeaderSize + index_size;
  if (Get<uint32_t>(file + index_end) != StoredCrc(file, index_end)) {
    Corrupt("the header and index fail their checksum");
  }
  // From here on the header and index are as written, barring a CRC collision; the checks
  // below and in ReadIndex still hold every value to the bounds of the file.
  if (version != kCheckpointFormatVersion) {
    Corrupt("format version " + std::to_string(version) + ", this reader knows only " +
            std::to_string(kCheckpointFormatVersion));
  }
  if (count > index_size / kMinEntrySize) {
    Corrupt(std::to_string(count) + " tensors cannot fit an index of " +
            std::to_string(index_size) + " bytes");
  }
  const uint64_t data_start = index_end + kHeaderCrcSize;
  return {count, index_end, data_start, size - data_start};
}

void CheckpointReader::ReadIndex(const std::string& head, const Layout& layout) {
  uint64_t pos = kHeaderSize;
  uint64_t next_offset = 0;  // The writer places data back to back, in index order.
  infos_.reserve(layout.count);
  extents_.reserve(layout.count);
  for (uint32_t i = 0; i < layout.count; ++i) {
    ReadIndexEntry(head.data(), layout, &pos, &next_offset);
  }
  if (pos != layout.index_end) Corrupt("the index has bytes after its last entry");
  if (next_offset != layout.data_size) Corrupt("the data section has bytes no tensor owns");
}

void CheckpointReader::ReadIndexEntry(const char* file, const Layout& layout, uint64_t* pos,
                                      uint64_t* next_offset) {
  auto need = [&](uint64_t n, const char* field) {
    if (n > layout.index_end - *pos) Corrupt(std::string("the index ends inside a ") + field);
  };
  need(4, "name length");
  const uint32_t name_size = Get<uint32_t>(file + *pos);
  *pos += 4;
  if (name_size == 0) Corrupt("an index entry has an empty name");
  need(name_size, "name");
  std::string name(file + *pos, name_size);
  *pos += name_size;
  if (!infos_.empty() && !(infos_.back().name < name)) {
    Corrupt("index entries are not sorted by unique name at '" + name + "'");
  }
  need(2, "dtype and rank");
  DataType dtype;
  if (!DtypeFromDisk(static_cast<uint8_t>(file[*pos]), &dtype)) {
    Corrupt("tensor '" + name + "' has unknown dtype code " +
            std::to_string(static_cast<uint8_t>(file[*pos])));
  }
  const int rank = static_cast<uint8_t>(file[*pos + 1]);
  *pos += 2;
  if (rank > kMaxRank) Corrupt("tensor '" + name + "' has rank " + std::to_string(rank));
  need(8 * static_cast<uint64_t>(rank), "shape");
  std::vector<int64_t> dims(rank);
  for (int d = 0; d < rank; ++d, *pos += 8) {
    dims[d] = Get<int64_t>(file + *pos);
    if (dims[d] < 0) Corrupt("tensor '" + name + "' has a negative dimension");
  }
  need(8 + 8 + 4, "data extent");
  const uint64_t offset = Get<uint64_t>(file + *pos);
  const uint64_t length = Get<uint64_t>(file + *pos + 8);
  const uint32_t crc = Get<uint32_t>(file + *pos + 16);
  *pos += 20;
  if (offset != *next_offset || length > layout.data_size - offset) {
    Corrupt("tensor '" + name + "' has data at offset " + std::to_string(offset) + ", length " +
            std::to_string(length) + ", outside the data section of " +
            std::to_string(layout.data_size) + " bytes");
  }
  *next_offset = offset + length;
  CheckLengthFitsShape(name, dtype, dims, length);
  infos_.push_back({std::move(name), dtype, TensorShape(std::move(dims))});
  extents_.push_back({layout.data_start + offset, length, crc});
}

void CheckpointReader::CheckLengthFitsShape(const std::string& name, DataType dtype,
                                            const std::vector<int64_t>& dims,
                                            uint64_t length) const {
  // The element count must agree with the data length; this also bounds every later
  // allocation by the size of the file itself.
  uint64_t elements = 0;
  const uint64_t element_size = DiskElementSize(dtype);
  const uint64_t min_bytes_per_element = dtype == DataType::kString ? 8 : element_size;
  if (!ElementCount(dims, length / min_bytes_per_element, &elements) ||
      (dtype != DataType::kString && elements * element_size != length)) {
    Corrupt("tensor '" + name + "' has " + std::to_string(length) +
            " data bytes, which do not fit its shape");
  }
}

size_t CheckpointReader::IndexOf(const std::string& name) const {
  auto it = std::lower_bound(
      infos_.begin(), infos_.end(), name,
      [](const CheckpointTensorInfo& info, const std::string& n) { return info.name < n; });
  if (it == infos_.end() || it->name != name) return infos_.size();
  return static_cast<size_t>(it - infos_.begin());
}

bool CheckpointReader::Has(const std::string& name) const { return IndexOf(name) < infos_.size(); }

const CheckpointTensorInfo& CheckpointReader::Info(const std::string& name) const {
  const size_t i = IndexOf(name);
  if (i == infos_.size()) {
    throw NotFoundError("Tensor '" + name + "' not found in checkpoint " + path_);
  }
  return infos_[i];
}

void CheckpointReader::ReadVerified(const std::string& name, const Extent& extent,
                                    char* dst) const {
  // In pieces, each checksummed right after it arrives, while it is likely still in the
  // core's caches. 1 MiB is large enough that the system calls cost nothing beside the
  // copying (16 KiB pieces took twice as long, from the calls alone) and measured no slower
  // than whole 4 MiB tensors.
  constexpr uint64_t kPiece = 1 << 20;
  uint32_t crc = 0;
  for (uint64_t done = 0; done < extent.length;) {
    const uint64_t want = std::min(kPiece, extent.length - done);
    if (file_->Read(extent.offset + done, want, dst + done) != want) {
      CorruptData(name, "ends early: the file was cut short after it was opened");
    }
    crc = Crc32cExtend(crc, dst + done, want);
    done += want;
  }
  if (MaskCrc(crc) != extent.masked_crc) CorruptData(name, "fails its checksum");
}

void CheckpointReader::CorruptData(const std::string& name, const std::string& what) const {
  throw DataLossError("Checkpoint file " + path_ + " is corrupt: the data of tensor '" + name +
                      "' " + what + ". " + kDamagedAdvice);
}

Tensor CheckpointReader::Read(const std::string& name) const {
  const CheckpointTensorInfo& info = Info(name);
  const Extent& extent = extents_[IndexOf(name)];
  auto corrupt = [&](const std::string& what) { CorruptData(name, what); };
  // Numbers lie in the file as in memory: their bytes are read straight into the new
  // tensor's buffer, verified there, and never copied again. Bools and strings are read
  // into `encoded` and decoded from it.
  std::string encoded;
  const bool numeric = info.dtype != DataType::kString && info.dtype != DataType::kBool;
  Tensor tensor(info.dtype, info.shape);
  const uint64_t n = static_cast<uint64_t>(tensor.num_elements());
  if (numeric) {
    // The constructor checked that length == elements * element size.
    DispatchDataType(info.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
        ReadVerified(name, extent, reinterpret_cast<char*>(tensor.data<T>()));
      }
    });
    return tensor;
  }
  encoded.resize(extent.length);
  ReadVerified(name, extent, &encoded[0]);
  const char* data = encoded.data();
  switch (info.dtype) {
    case DataType::kString: {
      std::string* out = tensor.data<std::string>();
      uint64_t pos = 0;
      for (uint64_t i = 0; i < n; ++i) {
        if (extent.length - pos < 8) corrupt("ends inside a string length");
        const uint64_t len = Get<uint64_t>(data + pos);
        pos += 8;
        if (len > extent.length - pos) corrupt("has a string longer than the data");
        out[i].assign(data + pos, len);
        pos += len;
      }
      if (pos != extent.length) corrupt("has bytes after its last string");
      break;
    }
    case DataType::kBool: {
      bool* out = tensor.data<bool>();
      for (uint64_t i = 0; i < n; ++i) {
        if (data[i] != 0 && data[i] != 1) corrupt("has a bool that is neither 0 nor 1");
        out[i] = data[i] == 1;
      }
      break;
    }
    default:
      break;  // Numbers were read above.
  }
  return tensor;
}

}  // namespace mts
