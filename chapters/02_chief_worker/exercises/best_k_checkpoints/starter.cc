// Starter for the best-k checkpoints exercise.
#include <utility>

#include "chapters/02_chief_worker/exercises/best_k_checkpoints/best_k_checkpoints.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/platform/errors.h"

namespace mts {

BestCheckpointKeeper::BestCheckpointKeeper(Saver* saver, std::string save_path, int k,
                                           FileSystem* fs)
    : saver_(saver),
      save_path_(std::move(save_path)),
      k_(k),
      fs_(fs != nullptr ? fs : DefaultFileSystem()) {
  if (k_ < 1)
    throw ValueError("BestCheckpointKeeper: k must be at least 1, got " + std::to_string(k_));
}

// [mts:exercise-todo]
bool BestCheckpointKeeper::Save(SessionInterface& session, int64_t step, double metric) {
  // TODO: this saves and remembers every checkpoint, and never deletes one. The header
  // states the contract; the decisions are yours, and the tests pin them:
  //  - where a new checkpoint goes among equal metrics, and what a second save of the same
  //    step (the same path) does to the list;
  //  - in which order the new file, the state file (UpdateCheckpointStateFile, in
  //    checkpoint_state.h, with kStateFile) and the deletion happen, so that a crash
  //    between any two leaves a state file naming only whole files that exist;
  //  - when kept_ changes, so that a failure leaves it describing the disk, and what a
  //    failed deletion should cost.
  const std::string path = *saver_->Save(session, save_path_, step, "checkpoint",
                                         /*write_state=*/false);
  kept_.push_back({path, metric});
  return true;
}
// [mts:exercise-todo-end]

}  // namespace mts
