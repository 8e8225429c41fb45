// latest_sound_checkpoint.cc: the rules that choose the checkpoint a directory restores
// (listed in the header), each a step below.
#include "src/02_chief_worker/checkpoint/latest_sound_checkpoint.h"

#include <algorithm>

#include "src/02_chief_worker/checkpoint/checkpoint_file.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/platform/logging.h"

namespace mts {
namespace {

// "a (missing); b (Checkpoint file b is corrupt: ...)": every skipped checkpoint and why.
std::string Describe(const std::vector<SkippedCheckpoint>& skipped) {
  std::string text;
  for (const SkippedCheckpoint& checkpoint : skipped) {
    text += (text.empty() ? "" : "; ") + checkpoint.path + " (" + checkpoint.reason + ")";
  }
  return text;
}

// [mts:state-to-restore]
// Rules 1 to 3: the candidates of `checkpoint_dir`, as a state, and where they came from.
std::optional<CheckpointState> StateToRestore(const std::string& checkpoint_dir, FileSystem& fs,
                                              CheckpointSource* source) {
  *source = CheckpointSource::kNone;
  const std::string state_path = JoinPath(checkpoint_dir, "checkpoint");
  try {
    std::optional<CheckpointState> state = GetCheckpointState(checkpoint_dir, "checkpoint", &fs);
    if (state) *source = CheckpointSource::kStateFile;
    if (state || !fs.Exists(state_path)) return state;
  } catch (const ValueError& e) {
    // An empty state file, or one naming no checkpoint: TensorFlow stops here with no
    // remedy. It is as unusable as a garbage one, and treated the same way.
    MTS_LOG(WARNING) << e.what();
  }
  // Beyond TensorFlow, which starts from scratch when the state file cannot be read, and
  // whose first saves then overwrite the checkpoints of the same steps: the files are still
  // here, so the newest of them that passes its checksums is restored.
  const std::vector<std::string> files = FindCheckpointFiles(fs, checkpoint_dir);
  if (files.empty()) {
    MTS_LOG(WARNING) << "The state file " << state_path
                     << " is unusable and no checkpoint file is in " << checkpoint_dir
                     << ": starting from scratch.";
    return std::nullopt;
  }
  MTS_LOG(WARNING) << "The state file " << state_path << " is unusable; restoring from the "
                   << files.size() << " checkpoint file(s) in " << checkpoint_dir
                   << " instead, newest first. The next save rewrites the state file.";
  *source = CheckpointSource::kCheckpointFiles;
  CheckpointState found;
  found.model_checkpoint_path = files.back();
  found.all_model_checkpoint_paths = files;
  return found;
}
// [mts:state-to-restore-end]

// Why the checkpoint at `path` cannot be restored, or nullopt if it can: "missing", or what
// the reader finds wrong with its header, its index or the data of `tensors` (all: nullopt).
std::optional<std::string> WhyUnsound(FileSystem& fs, const std::string& path,
                                      const std::optional<std::vector<std::string>>& tensors) {
  if (!fs.Exists(path)) return "missing";
  try {
    const CheckpointReader reader(fs, path);
    if (!tensors) {
      for (const CheckpointTensorInfo& info : reader.tensors()) reader.Read(info.name);
    } else {
      for (const std::string& name : *tensors) {
        if (reader.Has(name)) reader.Read(name);
      }
    }
  } catch (const DataLossError& damaged) {
    return std::string(damaged.what());
  }
  return std::nullopt;
}

// [mts:newest-sound]
// Rules 4 and 5: the newest candidate of `state` that passes, the ones skipped before it,
// and what the saver tracks from then on.
void ChooseNewestSound(const CheckpointState& state,
                       const std::optional<std::vector<std::string>>& tensors, FileSystem& fs,
                       CheckpointToRestore* result) {
  // Beyond TensorFlow, which fails at the newest: if it is missing (deleted, a copy cut
  // short) or fails its checksums (a bad disk), the older ones the state lists are tried,
  // newest first. Training then repeats the steps since the one restored, and no wrong
  // value is ever loaded.
  const std::string& latest = state.model_checkpoint_path;
  const std::vector<std::string>& all = state.all_model_checkpoint_paths;
  std::vector<std::string> candidates = {latest};
  for (size_t i = all.size(); i-- > 0;) {
    if (all[i] != latest) candidates.push_back(all[i]);
  }
  for (const std::string& path : candidates) {
    if (std::optional<std::string> why = WhyUnsound(fs, path, tensors)) {
      result->skipped.push_back({path, std::move(*why)});
      continue;
    }
    result->path = path;
    // Rotation goes on from the one chosen; newer, unusable files are no longer tracked, so
    // they are never deleted by the saver either. Files found without a state file to vouch
    // for them are never its to delete: only the one chosen is tracked.
    const auto end = std::find(all.begin(), all.end(), path);
    result->tracked = end == all.end() || result->source == CheckpointSource::kCheckpointFiles
                          ? std::vector<std::string>{path}
                          : std::vector<std::string>(all.begin(), end + 1);
    return;
  }
}
// [mts:newest-sound-end]

}  // namespace

// [mts:latest-sound-checkpoint]
CheckpointToRestore LatestSoundCheckpoint(const std::string& checkpoint_dir,
                                          const std::optional<std::vector<std::string>>& tensors,
                                          FileSystem* fs) {
  FileSystem& files = fs != nullptr ? *fs : *DefaultFileSystem();
  CheckpointToRestore result;
  const std::optional<CheckpointState> state =
      StateToRestore(checkpoint_dir, files, &result.source);
  if (state) ChooseNewestSound(*state, tensors, files, &result);
  return result;
}
// [mts:latest-sound-checkpoint-end]

std::string CheckpointToRestore::FallbackWarning() const {
  if (skipped.empty() || !path) return "";
  return "The latest checkpoint " + skipped.front().path +
         " is missing or failed its checksums; restored the newest earlier checkpoint that "
         "passes, " +
         *path + ". Unusable: " + Describe(skipped) +
         ". Damaged files are left in place for inspection.";
}

DataLossError CheckpointToRestore::NoneSoundError() const {
  const std::string dir = skipped.empty() ? "" : Dirname(skipped.front().path);
  return DataLossError(
      "Every checkpoint listed in the state file of " + dir +
      " is missing or fails its checksums, so none can be restored: " + Describe(skipped) +
      ". Restore from a backup copy, or move the checkpoint files and the "
      "`checkpoint` state file away to start training from scratch.");
}

}  // namespace mts
