// save_small_checkpoint: saves a three-variable model at step 7 and takes the file apart.
//
//   bazel run //chapters/02_chief_worker:save_small_checkpoint
//
// Chapter 02 shows what this prints: the training directory, the `checkpoint` state file,
// a hex dump of the checkpoint in xxd's layout, and every field of its header and index
// decoded by hand from the bytes (not through CheckpointReader, so the decoding here is an
// independent reading of the layout documented in checkpoint_file.h). It checks every
// checksum it meets, and reads the tensors back through CheckpointReader at the end.
//
// The output is the same on every run: the program works in a fresh temporary directory
// (mkdtemp), changes into it, and saves under the relative directory "train", so every
// path it prints, and every path the state file records, is relative.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "src/01_session/array_ops.h"
#include "src/01_session/session.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/checkpoint_file.h"
#include "src/02_chief_worker/saver.h"
#include "src/platform/crc32c.h"
#include "src/platform/file_system.h"

namespace mts {
namespace {

// [mts:hex-dump]
// The bytes as `xxd` shows them: offset, 16 bytes in pairs, then the printable ones.
void HexDump(const std::string& bytes) {
  for (size_t line = 0; line < bytes.size(); line += 16) {
    std::printf("%08zx: ", line);
    for (size_t i = line; i < line + 16; ++i) {
      if (i < bytes.size()) {
        std::printf("%02x", static_cast<unsigned char>(bytes[i]));
      } else {
        std::printf("  ");
      }
      if (i % 2 == 1) std::printf(" ");
    }
    std::printf(" ");
    for (size_t i = line; i < line + 16 && i < bytes.size(); ++i) {
      const unsigned char c = static_cast<unsigned char>(bytes[i]);
      std::printf("%c", c >= 0x20 && c < 0x7f ? c : '.');
    }
    std::printf("\n");
  }
}
// [mts:hex-dump-end]

// Little-endian integers at a byte offset; `pos` moves past them.
template <typename T>
T Take(const std::string& bytes, size_t* pos) {
  T value;
  std::memcpy(&value, bytes.data() + *pos, sizeof(T));
  *pos += sizeof(T);
  return value;
}

const char* DtypeName(uint8_t code) {
  switch (code) {
    case 1: return "float";
    case 2: return "double";
    case 3: return "int32";
    case 7: return "string";
    case 9: return "int64";
    case 10: return "bool";
    default: return "?";
  }
}

const char* Verdict(bool ok) { return ok ? "ok" : "MISMATCH"; }

// One index entry, as decoded from the bytes.
struct Entry {
  std::string name;
  uint8_t dtype;
  std::vector<int64_t> dims;
  uint64_t offset, length;
  uint32_t crc;
};

// [mts:decode-checkpoint]
// Reads the header and the index field by field, printing each with its byte range, and
// checks the header's checksum and every tensor's.
void Decode(const std::string& file) {
  size_t pos = 0;
  std::printf("Header:\n");
  std::printf("  [%3zu, %3zu)  magic       \"%.7s\\0\"\n", pos, pos + 8, file.data());
  pos += 8;
  const uint32_t version = Take<uint32_t>(file, &pos);
  std::printf("  [%3zu, %3zu)  version     %u\n", pos - 4, pos, version);
  const uint32_t count = Take<uint32_t>(file, &pos);
  std::printf("  [%3zu, %3zu)  entries     %u\n", pos - 4, pos, count);
  const uint64_t index_size = Take<uint64_t>(file, &pos);
  std::printf("  [%3zu, %3zu)  index size  %llu bytes\n", pos - 8, pos,
              static_cast<unsigned long long>(index_size));
  const uint64_t file_size = Take<uint64_t>(file, &pos);
  std::printf("  [%3zu, %3zu)  file size   %llu bytes (the file has %zu)\n", pos - 8, pos,
              static_cast<unsigned long long>(file_size), file.size());

  std::printf("Index, sorted by name:\n");
  std::vector<Entry> entries;
  for (uint32_t i = 0; i < count; ++i) {
    const size_t start = pos;
    Entry e;
    const uint32_t name_size = Take<uint32_t>(file, &pos);
    e.name = file.substr(pos, name_size);
    pos += name_size;
    e.dtype = Take<uint8_t>(file, &pos);
    const uint8_t rank = Take<uint8_t>(file, &pos);
    for (int d = 0; d < rank; ++d) e.dims.push_back(Take<int64_t>(file, &pos));
    e.offset = Take<uint64_t>(file, &pos);
    e.length = Take<uint64_t>(file, &pos);
    e.crc = Take<uint32_t>(file, &pos);
    std::string shape = "[";
    for (size_t d = 0; d < e.dims.size(); ++d) {
      shape += (d ? "," : "") + std::to_string(e.dims[d]);
    }
    shape += "]";
    std::printf("  [%3zu, %3zu)  name \"%s\", dtype %u (%s), rank %u, shape %s,\n", start, pos,
                e.name.c_str(), e.dtype, DtypeName(e.dtype), rank, shape.c_str());
    std::printf("              data offset %llu, length %llu, crc 0x%08x\n",
                static_cast<unsigned long long>(e.offset),
                static_cast<unsigned long long>(e.length), e.crc);
    entries.push_back(e);
  }
  const size_t index_end = pos;
  const uint32_t header_crc = Take<uint32_t>(file, &pos);
  std::printf("  [%3zu, %3zu)  crc of bytes [0, %zu): 0x%08x, %s\n", index_end, pos, index_end,
              header_crc, Verdict(header_crc == MaskCrc(Crc32c(file.data(), index_end))));

  const size_t data_start = pos;
  std::printf("Data, from byte %zu:\n", data_start);
  for (const Entry& e : entries) {
    const size_t begin = data_start + e.offset;
    const size_t end = begin + e.length;
    const bool ok = e.crc == MaskCrc(Crc32c(file.data() + begin, e.length));
    std::printf("  [%3zu, %3zu)  %-12s crc %s\n", begin, end, e.name.c_str(), Verdict(ok));
  }
}
// [mts:decode-checkpoint-end]

int Main() {
  char dir_template[] = "/tmp/save_small_checkpoint.XXXXXX";
  if (::mkdtemp(dir_template) == nullptr || ::chdir(dir_template) != 0) {
    std::perror("save_small_checkpoint: temporary directory");
    return 1;
  }
  FileSystem& fs = *DefaultFileSystem();
  fs.CreateDirectories("train");

  // [mts:small-checkpoint-save]
  Graph graph;
  DefaultGraphScope as_default(graph);
  Variable w(Tensor::Vector<float>({1.5f, -2.0f}), "w");
  Variable b(Tensor::Scalar(0.25f), "b");
  Variable global_step = GetOrCreateGlobalStep();
  Saver saver;  // Every global variable: w, b and global_step.

  Session session(&graph);
  session.Run(GlobalVariablesInitializer());
  session.Run(global_step.Assign(Constant(Tensor::Scalar<int64_t>(7))));
  const std::string path = *saver.Save(session, "train/model.ckpt", /*global_step=*/7);
  // [mts:small-checkpoint-save-end]

  std::printf("Saver::Save returned \"%s\". The directory train/ now holds:\n", path.c_str());
  for (const std::string& name : fs.ListDirectory("train")) {
    std::printf("  %-12s %3llu bytes\n", name.c_str(),
                static_cast<unsigned long long>(fs.FileSize("train/" + name)));
  }
  std::printf("\ntrain/checkpoint, the state file:\n%s\n", fs.ReadFile("train/checkpoint").c_str());

  const std::string file = fs.ReadFile(path);
  std::printf("%s, as xxd shows it:\n", path.c_str());
  HexDump(file);
  std::printf("\n");
  Decode(file);

  std::printf("\nRead back through CheckpointReader:\n");
  CheckpointReader reader(fs, path);
  for (const CheckpointTensorInfo& info : reader.tensors()) {
    std::printf("  %-12s %s\n", info.name.c_str(), reader.Read(info.name).DebugString().c_str());
  }

  for (const std::string& name : fs.ListDirectory("train")) fs.DeleteFile("train/" + name);
  ::rmdir("train");
  if (::chdir("/") != 0 || ::rmdir(dir_template) != 0) std::perror("save_small_checkpoint");
  return 0;
}

}  // namespace
}  // namespace mts

int main() { return mts::Main(); }
