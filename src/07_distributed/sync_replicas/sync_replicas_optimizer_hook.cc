#include "src/07_distributed/sync_replicas/sync_replicas_optimizer_hook.h"

#include <string>

#include "src/07_distributed/sync_replicas/sync_replicas_optimizer.h"
#include "src/platform/errors.h"

namespace mts {

SyncReplicasOptimizerHook::SyncReplicasOptimizerHook(SyncReplicasOptimizer& sync_optimizer,
                                                     bool is_chief, int num_tokens)
    : sync_optimizer_(sync_optimizer), is_chief_(is_chief), num_tokens_(num_tokens) {}

void SyncReplicasOptimizerHook::Begin() {
  if (!sync_optimizer_.gradients_applied()) {
    throw ValueError(
        "SyncReplicasOptimizer.apply_gradient should be called before using the hook.");
  }
  if (is_chief_) {
    local_init_op_ = sync_optimizer_.chief_init_op();
    q_runner_ = sync_optimizer_.GetChiefQueueRunner();
    init_tokens_op_ = sync_optimizer_.GetInitTokensOp(num_tokens_);
  } else {
    local_init_op_ = sync_optimizer_.local_step_init_op();
  }
}

// [mts:sync-hook-after-create]
void SyncReplicasOptimizerHook::AfterCreateSession(SessionInterface& session, Coordinator* coord) {
  const Tensor unset = session.Run(*sync_optimizer_.ready_for_local_init_op());
  if (unset.num_elements() > 0) {
    std::string names;
    for (const std::string& name : unset.ToVector<std::string>()) {
      names += (names.empty() ? "" : ", ") + name;
    }
    throw RuntimeError(
        "Init operations did not make model ready for SyncReplicasOptimizer local_init. Init "
        "op: " +
        local_init_op_->name() + ", error: Variables not initialized: " + names);
  }
  session.Run(local_init_op_);
  if (init_tokens_op_ != nullptr) session.Run(init_tokens_op_);
  if (q_runner_ != nullptr) q_runner_->CreateThreads(session, coord, /*start=*/true);
}
// [mts:sync-hook-after-create-end]

}  // namespace mts
