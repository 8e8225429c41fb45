// make_seed_corpora.cc: writes the fuzz targets' seed corpora (tests/fuzz/corpus/).
//
//   bazel run //tests/fuzz:make_seed_corpora -- "$PWD/tests/fuzz/corpus"
//
// A fuzzer mutates its seeds, so seeds that are real files reach deep code at once:
//   checkpoint_reader_fuzzer   small checkpoints of every dtype, written by SerializeCheckpoint;
//   checkpoint_state_fuzzer    TensorFlow's own state files (tests/testdata/checkpoint_state);
//   event_file_reader_fuzzer   small records of TensorFlow's event files
//                              (tests/testdata/tfevents), whole, framing included.
// Each target reads its first byte as a mode (odd: repair checksums first, see the targets),
// so every binary seed is written twice, once per mode. The output is checked in; run this
// again only when the formats or the test data change.
#include <cstdint>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "src/02_chief_worker/checkpoint_file.h"
#include "src/03_hooked/record_reader.h"
#include "src/platform/file_system.h"

namespace mts {
namespace {

void Write(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

// A binary seed in both modes: "<name>-raw" (checksums kept) and "<name>-repair".
void WriteBothModes(const std::string& dir, const std::string& name, const std::string& bytes) {
  Write(JoinPath(dir, name + "-raw"), std::string(1, '\0') + bytes);
  Write(JoinPath(dir, name + "-repair"), std::string(1, '\1') + bytes);
}

void CheckpointSeeds(const std::string& dir) {
  FileSystem& fs = *DefaultFileSystem();
  fs.CreateDirectories(dir);
  WriteBothModes(dir, "empty", SerializeCheckpoint({}));
  WriteBothModes(dir, "scalar", SerializeCheckpoint({{"global_step", Tensor::Scalar<int64_t>(7)}}));
  WriteBothModes(dir, "every-dtype",
                 SerializeCheckpoint({
                     {"w", Tensor::Matrix<float>({{1.5f, -2}, {3, 4}})},
                     {"global_step", Tensor::Scalar<int64_t>(42)},
                     {"d", Tensor::Vector<double>({0.25})},
                     {"i", Tensor::Vector<int32_t>({-7, 8})},
                     {"flags", Tensor::Vector<bool>({true, false})},
                     {"names", Tensor::Vector<std::string>({"ab", ""})},
                     {"empty", Tensor::Zeros(DataType::kFloat, {0})},
                 }));
}

void StateSeeds(const std::string& testdata, const std::string& dir) {
  FileSystem& fs = *DefaultFileSystem();
  fs.CreateDirectories(dir);
  for (const std::string& name : fs.ListDirectory(testdata)) {
    if (name.size() > 11 && name.substr(name.size() - 11) == ".checkpoint") {
      Write(JoinPath(dir, name), fs.ReadFile(JoinPath(testdata, name)));
    }
  }
}

// Up to `count` records of each event file, each smaller than `max_record` bytes, framing
// included (the graph and metadata records are large; small seeds run fast).
void EventSeeds(const std::string& testdata, const std::string& dir, int count,
                uint64_t max_record) {
  FileSystem& fs = *DefaultFileSystem();
  fs.CreateDirectories(dir);
  for (const std::string& name : fs.ListDirectory(testdata)) {
    if (name.find(".tfevents") == std::string::npos) continue;
    const std::string contents = fs.ReadFile(JoinPath(testdata, name));
    RecordReader reader(name, contents);
    std::string seed, record;
    int kept = 0;
    uint64_t start = reader.offset();
    while (kept < count && reader.ReadNext(&record)) {
      if (reader.offset() - start < max_record) {
        seed += contents.substr(start, reader.offset() - start);
        ++kept;
      }
      start = reader.offset();
    }
    WriteBothModes(dir, name.substr(0, name.find(".tfevents")), seed);
  }
}

}  // namespace
}  // namespace mts

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_seed_corpora OUT_DIR (tests/fuzz/corpus)\n";
    return 2;
  }
  const std::string out = argv[1];
  // Under `bazel run` the test data is in the runfiles tree, the working directory.
  mts::CheckpointSeeds(mts::JoinPath(out, "checkpoint_reader_fuzzer"));
  mts::StateSeeds("tests/testdata/checkpoint_state", mts::JoinPath(out, "checkpoint_state_fuzzer"));
  mts::EventSeeds("tests/testdata/tfevents", mts::JoinPath(out, "event_file_reader_fuzzer"), 8,
                  1024);
  std::cout << "seed corpora written under " << out << "\n";
  return 0;
}
