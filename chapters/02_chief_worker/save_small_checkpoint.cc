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

#include <cstdarg>
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
#include "src/02_chief_worker/checkpoint/checkpoint_file.h"
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
    case 1:
      return "float";
    case 2:
      return "double";
    case 3:
      return "int32";
    case 7:
      return "string";
    case 9:
      return "int64";
    case 10:
      return "bool";
    default:
      return "?";
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

// One field of the file: its byte range, the section it belongs to, and what it says.
struct Field {
  size_t begin, end;
  std::string section;
  std::string text;
  int entry = -1;  // For an index entry or a tensor's data: which tensor, in index order.
};

std::string Format(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string Format(const char* format, ...) {
  char buffer[256];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  return buffer;
}

// [mts:decode-checkpoint]
// Reads the header and the index field by field, each with its byte range, and checks the
// header's checksum and every tensor's.
std::vector<Field> Decode(const std::string& file) {
  std::vector<Field> fields;
  size_t pos = 0;
  auto field = [&](size_t begin, const char* section, std::string text, int entry = -1) {
    fields.push_back({begin, pos, section, std::move(text), entry});
  };
  const char* header = "Header";
  pos = 8;
  field(0, header, Format("magic       \"%.7s\\0\"", file.data()));
  const uint32_t version = Take<uint32_t>(file, &pos);
  field(pos - 4, header, Format("version     %u", version));
  const uint32_t count = Take<uint32_t>(file, &pos);
  field(pos - 4, header, Format("entries     %u", count));
  const uint64_t index_size = Take<uint64_t>(file, &pos);
  field(pos - 8, header,
        Format("index size  %llu bytes", static_cast<unsigned long long>(index_size)));
  const uint64_t file_size = Take<uint64_t>(file, &pos);
  field(pos - 8, header,
        Format("file size   %llu bytes (the file has %zu)",
               static_cast<unsigned long long>(file_size), file.size()));

  const char* index = "Index, sorted by name";
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
    field(start, index,
          Format("name \"%s\", dtype %u (%s), rank %u, shape %s,\n", e.name.c_str(), e.dtype,
                 DtypeName(e.dtype), rank, shape.c_str()) +
              Format("data offset %llu, length %llu, crc 0x%08x",
                     static_cast<unsigned long long>(e.offset),
                     static_cast<unsigned long long>(e.length), e.crc),
          static_cast<int>(i));
    entries.push_back(e);
  }
  const size_t index_end = pos;
  const uint32_t header_crc = Take<uint32_t>(file, &pos);
  field(index_end, index,
        Format("crc of bytes [0, %zu): 0x%08x, %s", index_end, header_crc,
               Verdict(header_crc == MaskCrc(Crc32c(file.data(), index_end)))));

  const size_t data_start = pos;
  const std::string data = Format("Data, from byte %zu", data_start);
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    const size_t begin = data_start + e.offset;
    pos = begin + e.length;
    const bool ok = e.crc == MaskCrc(Crc32c(file.data() + begin, e.length));
    field(begin, data.c_str(), Format("%-12s crc %s", e.name.c_str(), Verdict(ok)),
          static_cast<int>(i));
  }
  return fields;
}
// [mts:decode-checkpoint-end]

// The fields as text, one section after another.
void PrintFields(const std::vector<Field>& fields) {
  std::string section;
  for (const Field& f : fields) {
    if (f.section != section) std::printf("%s:\n", (section = f.section).c_str());
    std::string text = f.text;
    for (size_t at = 0; (at = text.find('\n', at)) != std::string::npos; at += 15) {
      text.insert(at + 1, std::string(14, ' '));
    }
    std::printf("  [%3zu, %3zu)  %s\n", f.begin, f.end, text.c_str());
  }
}

// [mts:draw-layout]
// The fields as a graphviz table, one row per field from the first byte to the last, and
// an arrow from each index entry to the data it locates.
void DrawFields(const std::vector<Field>& fields) {
  auto html = [](std::string text) {
    std::string out;
    for (char c : text) {
      if (c == '\n')
        out += "<br/>";
      else if (c == '<')
        out += "&lt;";
      else if (c == '>')
        out += "&gt;";
      else if (c == '&')
        out += "&amp;";
      else
        out += c;
    }
    return out;
  };
  std::printf(
      "digraph checkpoint {\n"
      "  graph [rankdir=LR, fontname=\"Helvetica\"];\n"
      "  node [shape=plaintext, fontname=\"Helvetica\", fontsize=11];\n"
      "  edge [color=\"#5577aa\", arrowsize=0.7];\n"
      "  file [label=<<table border=\"0\" cellborder=\"1\" cellspacing=\"0\" "
      "cellpadding=\"4\">\n");
  std::string section;
  for (size_t i = 0; i < fields.size(); ++i) {
    const Field& f = fields[i];
    const char* color = f.section == "Header"              ? "#eef3fb"
                        : f.section.rfind("Index", 0) == 0 ? "#fbf3e6"
                                                           : "#eef8ee";
    if (f.section != section) {
      section = f.section;
      std::printf("    <tr><td colspan=\"2\" bgcolor=\"#dddddd\"><b>%s</b></td></tr>\n",
                  html(section).c_str());
    }
    std::printf(
        "    <tr><td bgcolor=\"%s\" align=\"right\">[%zu, %zu)</td>"
        "<td bgcolor=\"%s\" align=\"left\" balign=\"left\" port=\"f%zu\">%s</td></tr>\n",
        color, f.begin, f.end, color, i, html(f.text).c_str());
  }
  std::printf("  </table>>];\n");
  // Each index entry points at its tensor's data: only the index says where it starts.
  for (size_t i = 0; i < fields.size(); ++i) {
    for (size_t j = i + 1; j < fields.size(); ++j) {
      if (fields[i].entry >= 0 && fields[j].entry == fields[i].entry) {
        std::printf("  file:f%zu:e -> file:f%zu:e;\n", i, j);
      }
    }
  }
  std::printf("}\n");
}
// [mts:draw-layout-end]

// Removes the training directory and the temporary directory around it.
int Clean(const char* dir) {
  FileSystem& fs = *DefaultFileSystem();
  for (const std::string& name : fs.ListDirectory("train")) fs.DeleteFile("train/" + name);
  ::rmdir("train");
  if (::chdir("/") != 0 || ::rmdir(dir) != 0) std::perror("save_small_checkpoint");
  return 0;
}

int Main(bool draw) {
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
  const std::string file = fs.ReadFile(path);
  if (draw) {
    DrawFields(Decode(file));
    return Clean(dir_template);
  }

  std::printf("Saver::Save returned \"%s\". The directory train/ now holds:\n", path.c_str());
  for (const std::string& name : fs.ListDirectory("train")) {
    std::printf("  %-12s %3llu bytes\n", name.c_str(),
                static_cast<unsigned long long>(fs.FileSize("train/" + name)));
  }
  std::printf("\ntrain/checkpoint, the state file:\n%s\n", fs.ReadFile("train/checkpoint").c_str());

  std::printf("%s, as xxd shows it:\n", path.c_str());
  HexDump(file);
  std::printf("\n");
  PrintFields(Decode(file));

  std::printf("\nRead back through CheckpointReader:\n");
  CheckpointReader reader(fs, path);
  for (const CheckpointTensorInfo& info : reader.tensors()) {
    std::printf("  %-12s %s\n", info.name.c_str(), reader.Read(info.name).DebugString().c_str());
  }

  return Clean(dir_template);
}

}  // namespace
}  // namespace mts

// With --dot, prints only the file's layout, as graphviz source (chapter 02 draws it).
int main(int argc, char** argv) {
  return mts::Main(argc > 1 && std::strcmp(argv[1], "--dot") == 0);
}
