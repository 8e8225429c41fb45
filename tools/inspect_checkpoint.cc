// inspect_checkpoint.cc: the library behind //tools:inspect_checkpoint (see the header).
#include "tools/inspect_checkpoint.h"

#include <optional>
#include <vector>

#include "src/01_session/tensor.h"
#include "src/02_chief_worker/checkpoint/checkpoint_file.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/platform/errors.h"

namespace mts {
namespace {

// TensorFlow's names of the dtypes, as its inspect_checkpoint prints them.
const char* TensorFlowTypeName(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat: return "DT_FLOAT";
    case DataType::kDouble: return "DT_DOUBLE";
    case DataType::kInt32: return "DT_INT32";
    case DataType::kInt64: return "DT_INT64";
    case DataType::kBool: return "DT_BOOL";
    case DataType::kString: return "DT_STRING";
  }
  return "DT_INVALID";
}

bool IsDirectory(FileSystem& fs, const std::string& path) {
  if (!fs.Exists(path)) return false;
  try {
    fs.ListDirectory(path);
    return true;
  } catch (const FailedPreconditionError&) {  // ENOTDIR: a file, which is what we want.
    return false;
  }
}

// The checkpoint `path` names: `path` itself, or a directory's newest checkpoint, the one a
// chief would restore. `*where` says how it was chosen. \throws NotFoundError if none.
std::string ChooseCheckpoint(FileSystem& fs, const std::string& path, std::string* where) {
  if (!IsDirectory(fs, path)) return path;  // A missing file is CheckpointReader's to report.
  try {
    if (std::optional<std::string> latest = LatestCheckpoint(path, "checkpoint", &fs)) {
      *where = " (the newest in " + path + ")";
      return *latest;
    }
  } catch (const ValueError&) {
    // A state file that parses but names no checkpoint: as unusable as a garbled one.
  }
  // No usable state file: the newest checkpoint file by step, as SessionManager falls back.
  const std::vector<std::string> files = FindCheckpointFiles(fs, path);
  if (files.empty()) {
    throw NotFoundError("no checkpoint in directory " + path +
                        " (no state file `checkpoint` naming one, no file model.ckpt-<step>)");
  }
  *where = " (the newest checkpoint file in " + path + "; its state file names none)";
  return files.back();
}

std::string Describe(const CheckpointTensorInfo& info) {
  return info.name + " (" + TensorFlowTypeName(info.dtype) + ") " + info.shape.ToString();
}

std::string Names(const CheckpointReader& reader) {
  std::string names;
  for (const CheckpointTensorInfo& info : reader.tensors()) {
    names += (names.empty() ? "" : ", ") + info.name;
  }
  return names;
}

}  // namespace

int InspectCheckpoint(const std::string& path, const InspectCheckpointOptions& options,
                      std::ostream& out, std::ostream& err, FileSystem* fs_or_null) {
  FileSystem& fs = fs_or_null != nullptr ? *fs_or_null : *DefaultFileSystem();
  try {
    std::string where;
    const std::string file = ChooseCheckpoint(fs, path, &where);
    // Reading the header and index checks their checksum; a failure here leaves no list of
    // tensors to trust, so it ends the inspection.
    const CheckpointReader reader(fs, file);
    if (!options.tensor_name.empty() && !reader.Has(options.tensor_name)) {
      err << "inspect_checkpoint: no tensor named '" << options.tensor_name << "' in " << file
          << "; it holds: " << Names(reader) << "\n";
      return 1;
    }
    const size_t count = reader.tensors().size();
    out << "Checkpoint " << file << where << ": " << count << " tensors, " << fs.FileSize(file)
        << " bytes\n";
    const bool list = options.tensor_name.empty() && !options.all_tensors;
    std::vector<std::string> damaged;
    for (const CheckpointTensorInfo& info : reader.tensors()) {
      // Every tensor is read, whatever is printed: reading is what checks its checksum.
      std::optional<Tensor> value;
      try {
        value = reader.Read(info.name);
      } catch (const DataLossError& e) {
        damaged.push_back(info.name);
        err << "inspect_checkpoint: " << e.what() << "\n";
      }
      if (list) out << Describe(info) << (value ? "" : "  <- DAMAGED") << "\n";
      if (options.all_tensors || info.name == options.tensor_name) {
        out << "tensor_name:  " << info.name << "\n"
            << (value ? value->ToString(value->num_elements()) : "<damaged: fails its checksum>")
            << "\n";
      }
    }
    if (!damaged.empty()) {
      out << "DAMAGED: the data of " << damaged.size() << " of " << count
          << " tensors fails its checksum:";
      for (const std::string& name : damaged) out << " " << name;
      out << ". Restore from another checkpoint.\n";
      return 1;
    }
    out << "Every checksum holds: the header and index, and the data of all " << count
        << " tensors.\n";
    return 0;
  } catch (const OpError& e) {
    err << "inspect_checkpoint: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace mts
