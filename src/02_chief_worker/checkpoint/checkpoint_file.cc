// checkpoint_file.cc: writing and verifying mts checkpoint files (layout in the header).
#include "src/02_chief_worker/checkpoint/checkpoint_file.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string_view>
#include <type_traits>

#include "src/platform/crc32c.h"
#include "src/platform/errors.h"

namespace mts {
namespace {

// Element data is copied with memcpy, which writes the host's byte order; the format says
// little-endian, so refuse to build where the two differ rather than write unreadable files.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "checkpoint_file.cc assumes a little-endian host");

constexpr size_t kHeaderSize = 32;    // Magic, version, count, index size, file size.
constexpr size_t kHeaderCrcSize = 4;  // After the index.
constexpr int kMaxRank = 32;
// The smallest index entry: a one-byte name, dtype, rank 0, offset, length, crc.
constexpr uint64_t kMinEntrySize = 4 + 1 + 1 + 1 + 8 + 8 + 4;
// What to do about a damaged checkpoint. Checkpoints are written atomically, so damage came
// later (a disk, a copy): an older checkpoint is the way back.
constexpr char kDamagedAdvice[] =
    "Restore an earlier checkpoint (a chief restoring from a directory falls back to the "
    "newest sound one by itself)";

// ---- Dtypes on disk: TensorFlow's DataType enum numbers, so a hex dump reads familiar. ----

// One table read both ways, so writing and reading cannot disagree about a code.
struct DiskDtypeCode {
  DataType dtype;
  uint8_t code;
};
constexpr DiskDtypeCode kDiskDtypes[] = {
    {DataType::kFloat, 1},  {DataType::kDouble, 2}, {DataType::kInt32, 3},
    {DataType::kString, 7}, {DataType::kInt64, 9},  {DataType::kBool, 10},
};

uint8_t DiskDtype(DataType dtype) {
  for (const DiskDtypeCode& entry : kDiskDtypes) {
    if (entry.dtype == dtype) return entry.code;
  }
  return 0;  // Unreachable: every dtype is in the table.
}

bool DtypeFromDisk(uint8_t code, DataType* dtype) {
  for (const DiskDtypeCode& entry : kDiskDtypes) {
    if (entry.code == code) {
      *dtype = entry.dtype;
      return true;
    }
  }
  return false;
}

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

// ---- Little-endian encoding ----------------------------------------------------------------

template <typename T>
void Put(std::string* out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out->append(bytes, sizeof(T));
}

template <typename T>
T Get(const char* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

uint32_t StoredCrc(const char* data, size_t n) { return MaskCrc(Crc32c(data, n)); }

// The data-section bytes of one tensor. Numbers are stored as they lie in memory (the file
// is little-endian, as is every machine mts builds on), so for them this is a view of the
// tensor's own buffer, not a copy: `scratch` holds the bytes only for bools and strings,
// whose encoding differs from their memory.
std::string_view EncodeData(const Tensor& t, std::string& scratch) {
  const int64_t n = t.num_elements();
  switch (t.dtype()) {
    case DataType::kString: {
      const std::string* strings = t.data<std::string>();
      for (int64_t i = 0; i < n; ++i) {
        Put<uint64_t>(&scratch, strings[i].size());
        scratch += strings[i];
      }
      return scratch;
    }
    case DataType::kBool: {
      const bool* bools = t.data<bool>();
      scratch.reserve(n);
      for (int64_t i = 0; i < n; ++i) scratch.push_back(bools[i] ? 1 : 0);
      return scratch;
    }
    default: {
      std::string_view view;
      DispatchDataType(t.dtype(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
          view = std::string_view(reinterpret_cast<const char*>(t.data<T>()), n * sizeof(T));
        }
      });
      return view;
    }
  }
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

// ---- Writing -------------------------------------------------------------------------------

namespace {

// A checkpoint ready to write: its header and index, then every tensor's data bytes, which
// for numbers are views of the tensors' own buffers (see EncodeData). Nothing is copied
// into one string: the file system writes the pieces from where they lie.
struct CheckpointPieces {
  std::string head;                    // Header, index and their crc.
  std::vector<std::string> scratch;    // The encodings of bool and string tensors.
  std::vector<std::string_view> data;  // Each tensor's data bytes, in index order.
};

// Fills `out` for `tensors`, which must outlive it. Each tensor's checksum is computed
// here, over its bytes where they lie, since the index that records it comes first.
void EncodeCheckpoint(const std::vector<NamedTensor>& tensors, CheckpointPieces* out) {
  std::vector<const NamedTensor*> sorted;
  sorted.reserve(tensors.size());
  for (const NamedTensor& t : tensors) sorted.push_back(&t);
  std::sort(sorted.begin(), sorted.end(),
            [](const NamedTensor* a, const NamedTensor* b) { return a->first < b->first; });

  std::string index;
  uint64_t data_size = 0;
  out->scratch.resize(sorted.size());
  out->data.resize(sorted.size());
  for (size_t i = 0; i < sorted.size(); ++i) {
    const std::string& name = sorted[i]->first;
    const Tensor& tensor = sorted[i]->second;
    if (name.empty()) throw InvalidArgumentError("WriteCheckpoint: a tensor has an empty name");
    if (i > 0 && name == sorted[i - 1]->first) {
      throw InvalidArgumentError("WriteCheckpoint: two tensors are named '" + name + "'");
    }
    if (!tensor.IsInitialized()) {
      throw InvalidArgumentError("WriteCheckpoint: tensor '" + name + "' is uninitialized");
    }
    if (tensor.shape().rank() > kMaxRank) {
      throw InvalidArgumentError("WriteCheckpoint: tensor '" + name + "' has rank " +
                                 std::to_string(tensor.shape().rank()) + ", more than " +
                                 std::to_string(kMaxRank));
    }
    const std::string_view bytes = EncodeData(tensor, out->scratch[i]);
    Put<uint32_t>(&index, static_cast<uint32_t>(name.size()));
    index += name;
    Put<uint8_t>(&index, DiskDtype(tensor.dtype()));
    Put<uint8_t>(&index, static_cast<uint8_t>(tensor.shape().rank()));
    for (int64_t d : tensor.shape().dims()) Put<int64_t>(&index, d);
    Put<uint64_t>(&index, data_size);
    Put<uint64_t>(&index, bytes.size());
    Put<uint32_t>(&index, StoredCrc(bytes.data(), bytes.size()));
    out->data[i] = bytes;
    data_size += bytes.size();
  }

  std::string& head = out->head;
  head.reserve(kHeaderSize + index.size() + kHeaderCrcSize);
  head.append(kCheckpointMagic, sizeof(kCheckpointMagic));
  Put<uint32_t>(&head, kCheckpointFormatVersion);
  Put<uint32_t>(&head, static_cast<uint32_t>(sorted.size()));
  Put<uint64_t>(&head, index.size());
  Put<uint64_t>(&head, kHeaderSize + index.size() + kHeaderCrcSize + data_size);
  head += index;
  Put<uint32_t>(&head, StoredCrc(head.data(), head.size()));
}

}  // namespace

std::string SerializeCheckpoint(const std::vector<NamedTensor>& tensors) {
  CheckpointPieces pieces;
  EncodeCheckpoint(tensors, &pieces);
  std::string file = pieces.head;
  for (std::string_view bytes : pieces.data) file += bytes;
  return file;
}

void WriteCheckpoint(FileSystem& fs, const std::string& path,
                     const std::vector<NamedTensor>& tensors) {
  CheckpointPieces pieces;
  EncodeCheckpoint(tensors, &pieces);
  std::vector<std::string_view> file = {pieces.head};
  file.insert(file.end(), pieces.data.begin(), pieces.data.end());
  // Temporary name, fsync, rename, fsync of the directory: see FileSystem. Each tensor's
  // bytes go from its own buffer to the kernel (writev): no staging copy of the file.
  fs.WritePiecesAtomically(path, file);
}

// ---- Reading -------------------------------------------------------------------------------

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
  const std::string head = OpenAndReadHead(fs, &size);
  const char* file = head.data();

  // The header. Every field is checked against the bytes really present before it is used
  // (`head` holds the header, the index and their checksum; `size` is the whole file's).
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
  // below still hold every value to the bounds of the file.
  if (version != kCheckpointFormatVersion) {
    Corrupt("format version " + std::to_string(version) + ", this reader knows only " +
            std::to_string(kCheckpointFormatVersion));
  }
  if (count > index_size / kMinEntrySize) {
    Corrupt(std::to_string(count) + " tensors cannot fit an index of " +
            std::to_string(index_size) + " bytes");
  }
  const uint64_t data_start = index_end + kHeaderCrcSize;
  const uint64_t data_size = size - data_start;

  // The index entries.
  uint64_t pos = kHeaderSize;
  auto need = [&](uint64_t n, const char* field) {
    if (n > index_end - pos) Corrupt(std::string("the index ends inside a ") + field);
  };
  uint64_t next_offset = 0;  // The writer places data back to back, in index order.
  infos_.reserve(count);
  extents_.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    need(4, "name length");
    const uint32_t name_size = Get<uint32_t>(file + pos);
    pos += 4;
    if (name_size == 0) Corrupt("an index entry has an empty name");
    need(name_size, "name");
    std::string name(file + pos, name_size);
    pos += name_size;
    if (!infos_.empty() && !(infos_.back().name < name)) {
      Corrupt("index entries are not sorted by unique name at '" + name + "'");
    }
    need(2, "dtype and rank");
    DataType dtype;
    if (!DtypeFromDisk(static_cast<uint8_t>(file[pos]), &dtype)) {
      Corrupt("tensor '" + name + "' has unknown dtype code " +
              std::to_string(static_cast<uint8_t>(file[pos])));
    }
    const int rank = static_cast<uint8_t>(file[pos + 1]);
    pos += 2;
    if (rank > kMaxRank) Corrupt("tensor '" + name + "' has rank " + std::to_string(rank));
    need(8 * static_cast<uint64_t>(rank), "shape");
    std::vector<int64_t> dims(rank);
    for (int d = 0; d < rank; ++d, pos += 8) {
      dims[d] = Get<int64_t>(file + pos);
      if (dims[d] < 0) Corrupt("tensor '" + name + "' has a negative dimension");
    }
    need(8 + 8 + 4, "data extent");
    const uint64_t offset = Get<uint64_t>(file + pos);
    const uint64_t length = Get<uint64_t>(file + pos + 8);
    const uint32_t crc = Get<uint32_t>(file + pos + 16);
    pos += 20;
    if (offset != next_offset || length > data_size - offset) {
      Corrupt("tensor '" + name + "' has data at offset " + std::to_string(offset) + ", length " +
              std::to_string(length) + ", outside the data section of " +
              std::to_string(data_size) + " bytes");
    }
    next_offset = offset + length;
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
    infos_.push_back({std::move(name), dtype, TensorShape(std::move(dims))});
    extents_.push_back({data_start + offset, length, crc});
  }
  if (pos != index_end) Corrupt("the index has bytes after its last entry");
  if (next_offset != data_size) Corrupt("the data section has bytes no tensor owns");
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
