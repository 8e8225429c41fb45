// Starter for the best-k checkpoints exercise.
#include "chapters/02_chief_worker/exercises/best_k_checkpoints/best_k_checkpoints.h"

#include <utility>

#include "src/platform/errors.h"
#include "src/02_chief_worker/checkpoint_state.h"

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

// [mts:exercise-todo]
bool BestCheckpointKeeper::Save(SessionInterface& session, int64_t step, double metric) {
  // TODO: this saves and remembers every checkpoint, and never deletes one. Make it:
  //   1. insert the new checkpoint into kept_ in order, best first, after any with an
  //      equal metric (ties go to the earlier checkpoint);
  //   2. if more than k_ are kept, the last one drops out;
  //   3. rewrite the state file with UpdateCheckpointStateFile(Dirname(save_path_), best,
  //      kept paths worst to best, kStateFile, false, fs_);
  //   4. only then delete the dropped checkpoint's file with fs_->DeleteFile.
  // Change kept_ only once the state file is written, so a failed write leaves it as it was.
  const std::string path = *saver_->Save(session, save_path_, step, "checkpoint",
                                         /*write_state=*/false);
  kept_.push_back({path, metric});
  return true;
}
// [mts:exercise-todo-end]

}  // namespace mts
