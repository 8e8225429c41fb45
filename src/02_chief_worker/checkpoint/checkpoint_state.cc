// checkpoint_state.cc: the `checkpoint` state file on disk: the path rules, atomic update,
// reading it back. The text format itself (protobuf's TextFormat) is in checkpoint_state_text.cc.
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"

#include "src/platform/errors.h"
#include "src/platform/logging.h"

namespace mts {

namespace {

FileSystem& OrDefault(FileSystem* fs) { return fs != nullptr ? *fs : *DefaultFileSystem(); }

// ---- Paths, as Python's os.path does them on POSIX ----------------------------------------

bool IsAbsolute(const std::string& path) { return !path.empty() && path[0] == '/'; }

// The components of `path` made absolute and normalised (AbsolutePath), split at '/'.
std::vector<std::string> AbsoluteComponents(const std::string& path) {
  const std::string full = AbsolutePath(path);
  std::vector<std::string> parts;
  for (size_t start = 1; start < full.size();) {
    size_t end = full.find('/', start);
    if (end == std::string::npos) end = full.size();
    parts.push_back(full.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// os.path.relpath(path, start), with an empty start meaning "." (Python raises there).
std::string RelativePath(const std::string& path, const std::string& start) {
  const std::vector<std::string> to = AbsoluteComponents(path);
  const std::vector<std::string> from = AbsoluteComponents(start.empty() ? "." : start);
  size_t common = 0;
  while (common < to.size() && common < from.size() && to[common] == from[common]) ++common;
  std::string out;
  for (size_t i = common; i < from.size(); ++i) out = JoinPath(out, "..");
  for (size_t i = common; i < to.size(); ++i) out = JoinPath(out, to[i]);
  return out.empty() ? "." : out;
}

std::string JoinUnlessAbsolute(const std::string& dir, const std::string& path) {
  return IsAbsolute(path) ? path : JoinPath(dir, path);
}

}  // namespace

CheckpointState GenerateCheckpointState(const std::string& save_dir,
                                        const std::string& model_checkpoint_path,
                                        std::vector<std::string> all_model_checkpoint_paths,
                                        std::vector<double> all_model_checkpoint_timestamps,
                                        double last_preserved_timestamp) {
  CheckpointState state;
  state.model_checkpoint_path = model_checkpoint_path;
  state.all_model_checkpoint_paths = std::move(all_model_checkpoint_paths);
  state.all_model_checkpoint_timestamps = std::move(all_model_checkpoint_timestamps);
  state.last_preserved_timestamp = last_preserved_timestamp;
  std::vector<std::string>& all = state.all_model_checkpoint_paths;
  if (all.empty() || all.back() != model_checkpoint_path) {
    MTS_LOG(INFO) << model_checkpoint_path
                  << " is not in all_model_checkpoint_paths. Manually adding it.";
    all.push_back(model_checkpoint_path);
  }
  if (!state.all_model_checkpoint_timestamps.empty() &&
      state.all_model_checkpoint_timestamps.size() != all.size()) {
    throw ValueError("Checkpoint timestamps, if provided, must match checkpoint paths (got " +
                     std::to_string(all.size()) + " paths and " +
                     std::to_string(state.all_model_checkpoint_timestamps.size()) +
                     " timestamps)");
  }
  // A relative directory gets relative paths, so the directory can be moved or mounted
  // elsewhere and its state file still names its own checkpoints.
  if (!IsAbsolute(save_dir)) {
    if (!IsAbsolute(state.model_checkpoint_path)) {
      state.model_checkpoint_path = RelativePath(state.model_checkpoint_path, save_dir);
    }
    for (std::string& path : all) {
      if (!IsAbsolute(path)) path = RelativePath(path, save_dir);
    }
  }
  return state;
}

void UpdateCheckpointStateFile(const std::string& save_dir,
                               const std::string& model_checkpoint_path,
                               const std::vector<std::string>& all_model_checkpoint_paths,
                               const std::string& latest_filename, bool save_relative_paths,
                               FileSystem* fs) {
  const std::string state_path = JoinPath(save_dir, latest_filename);
  std::string model_path = model_checkpoint_path;
  std::vector<std::string> all_paths = all_model_checkpoint_paths;
  if (save_relative_paths) {
    if (IsAbsolute(model_path)) model_path = RelativePath(model_path, save_dir);
    for (std::string& path : all_paths) {
      if (IsAbsolute(path)) path = RelativePath(path, save_dir);
    }
  }
  const CheckpointState state = GenerateCheckpointState(save_dir, model_path, all_paths);
  if (state_path == state.model_checkpoint_path) {
    throw RuntimeError("Save path '" + model_checkpoint_path +
                       "' conflicts with path used for checkpoint state.  Please use a "
                       "different save path.");
  }
  OrDefault(fs).WriteFileAtomically(state_path, CheckpointStateToText(state));
}

std::optional<CheckpointState> GetCheckpointState(const std::string& checkpoint_dir,
                                                  const std::string& latest_filename,
                                                  FileSystem* fs) {
  FileSystem& files = OrDefault(fs);
  const std::string state_path = JoinPath(checkpoint_dir, latest_filename);
  if (!files.Exists(state_path)) return std::nullopt;
  CheckpointState state;
  // A state file that cannot be read or parsed is treated as absent: a training job then
  // starts from scratch instead of failing, as TensorFlow's does. The warning says so.
  try {
    state = ParseCheckpointState(files.ReadFile(state_path));
  } catch (const OpError& e) {
    MTS_LOG(WARNING) << ErrorCodeName(e.code()) << ": " << e.what();
    MTS_LOG(WARNING) << state_path << ": Checkpoint ignored";
    return std::nullopt;
  } catch (const ValueError& e) {
    MTS_LOG(WARNING) << "ParseError: " << e.what();
    MTS_LOG(WARNING) << state_path << ": Checkpoint ignored";
    return std::nullopt;
  }
  if (state.model_checkpoint_path.empty()) {
    throw ValueError("Invalid checkpoint state loaded from " + checkpoint_dir);
  }
  state.model_checkpoint_path = JoinUnlessAbsolute(checkpoint_dir, state.model_checkpoint_path);
  for (std::string& path : state.all_model_checkpoint_paths) {
    path = JoinUnlessAbsolute(checkpoint_dir, path);
  }
  PreferFilesInDirectory(checkpoint_dir, &state, files);
  return state;
}

// [mts:prefer-files-in-directory]
void PreferFilesInDirectory(const std::string& checkpoint_dir, CheckpointState* state,
                            FileSystem& fs) {
  // A state file written for an absolute directory holds absolute paths. In a copy of the
  // directory they still name the original's files: a run in the copy would restore from
  // the original, and its rotation would delete the original's checkpoints. TensorFlow does
  // exactly that. A path that leads out of the directory holding the state file is taken
  // to mean the file of that name in it, when there is one.
  std::string elsewhere;
  auto prefer_local = [&](std::string& path) {
    if (IsInDirectory(path, checkpoint_dir)) return;
    const std::string local = JoinPath(checkpoint_dir, Basename(path));
    if (!fs.Exists(local)) return;
    elsewhere = Dirname(path);
    path = local;
  };
  prefer_local(state->model_checkpoint_path);
  for (std::string& path : state->all_model_checkpoint_paths) prefer_local(path);
  if (!elsewhere.empty()) {
    MTS_LOG(WARNING) << "The state file of " << checkpoint_dir << " names checkpoints in "
                     << elsewhere << " (the directory was copied or moved); using the files "
                     << "of the same names in " << checkpoint_dir << ".";
  }
}
// [mts:prefer-files-in-directory-end]

std::optional<std::string> LatestCheckpoint(const std::string& checkpoint_dir,
                                            const std::string& latest_filename,
                                            FileSystem* fs) {
  FileSystem& files = OrDefault(fs);
  const std::optional<CheckpointState> state =
      GetCheckpointState(checkpoint_dir, latest_filename, &files);
  if (!state) return std::nullopt;
  // mts checkpoints are one file at the prefix itself (TensorFlow's V1 layout).
  if (files.Exists(state->model_checkpoint_path)) return state->model_checkpoint_path;
  MTS_LOG(ERROR) << "Couldn't match files for checkpoint " << state->model_checkpoint_path;
  return std::nullopt;
}

}  // namespace mts
