// Reference solution of the best-k checkpoints exercise.
#include <algorithm>
#include <utility>

#include "chapters/02_chief_worker/exercises/best_k_checkpoints/best_k_checkpoints.h"
#include "src/platform/errors.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/platform/logging.h"

namespace mts {

BestCheckpointKeeper::BestCheckpointKeeper(Saver* saver, std::string save_path, int k,
                                           FileSystem* fs)
    : saver_(saver),
      save_path_(std::move(save_path)),
      k_(k),
      fs_(fs != nullptr ? fs : DefaultFileSystem()) {
  if (k_ < 1) throw ValueError("BestCheckpointKeeper: k must be at least 1, got " +
                               std::to_string(k_));
}

bool BestCheckpointKeeper::Save(SessionInterface& session, int64_t step, double metric) {
  // 1. The new checkpoint, whole on disk before anything names it.
  const std::string path = *saver_->Save(session, save_path_, step, "checkpoint",
                                         /*write_state=*/false);

  // 2. The new list, computed aside: upper_bound places it after equal metrics, so an
  //    earlier checkpoint wins a tie. Saving a step again replaces its old entry.
  std::vector<ScoredCheckpoint> kept = kept_;
  kept.erase(std::remove_if(kept.begin(), kept.end(),
                            [&](const ScoredCheckpoint& c) { return c.path == path; }),
             kept.end());
  auto at = std::upper_bound(
      kept.begin(), kept.end(), metric,
      [](double m, const ScoredCheckpoint& c) { return m < c.metric; });
  kept.insert(at, {path, metric});
  std::vector<std::string> dropped;
  while (kept.size() > static_cast<size_t>(k_)) {
    dropped.push_back(kept.back().path);
    kept.pop_back();
  }

  // 3. The state file, atomically: worst to best, so the best is last and is the model path.
  std::vector<std::string> worst_to_best;
  for (auto it = kept.rbegin(); it != kept.rend(); ++it) worst_to_best.push_back(it->path);
  UpdateCheckpointStateFile(Dirname(save_path_), kept.front().path, worst_to_best, kStateFile,
                            /*save_relative_paths=*/false, fs_);
  kept_ = std::move(kept);

  // 4. Only now, when nothing names them, delete the files of those that dropped out.
  bool kept_new = true;
  for (const std::string& gone : dropped) {
    if (gone == path) kept_new = false;
    try {
      fs_->DeleteFile(gone);
    } catch (const OpError& e) {
      // A file that cannot be deleted costs disk space, not correctness: the state file
      // no longer names it. The Saver ignores the same failure the same way.
      MTS_LOG(WARNING) << "Ignoring: " << e.what();
    }
  }
  return kept_new;
}

}  // namespace mts
