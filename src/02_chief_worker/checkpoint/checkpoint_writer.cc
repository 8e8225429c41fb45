// checkpoint_writer.cc: the writing half of the checkpoint format (checkpoint_file.h):
// each tensor's bytes encoded where they lie, the index and its checksum, and one atomic
// write of the pieces.
#include <algorithm>
#include <string_view>
#include <type_traits>

#include "src/02_chief_worker/checkpoint/checkpoint_file.h"
#include "src/02_chief_worker/checkpoint/checkpoint_layout.h"
#include "src/platform/errors.h"

namespace mts {
namespace {

using internal::DiskDtype;
using internal::kHeaderCrcSize;
using internal::kHeaderSize;
using internal::kMaxRank;
using internal::Put;
using internal::StoredCrc;

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
}  // namespace mts
