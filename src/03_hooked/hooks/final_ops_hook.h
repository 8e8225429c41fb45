// final_ops_hook.h: runs some tensors once, when training ends cleanly, and keeps their
// values.
//
// Stage 03, a hook: End() runs `final_ops` (with an optional feed) on the raw session and
// stores the result for final_ops_values(), read after the monitored session is closed. End()
// runs only at a clean close, so a failed run leaves no values. A final op that pulls more
// input fails with OutOfRangeError, which the hook lets through with a warning.
//
// Lifecycle: construct with the ops; End (runs them); final_ops_values(). Thread safety:
// one thread calls a hook.
//
// Example: auto final_ops = std::make_shared<FinalOpsHook>(std::vector<Output>{accuracy});
//
// TensorFlow: tf.train.FinalOpsHook (tensorflow/python/training/basic_session_run_hooks.py).
#ifndef MTS_SRC_03_HOOKED_HOOKS_FINAL_OPS_HOOK_H_
#define MTS_SRC_03_HOOKED_HOOKS_FINAL_OPS_HOOK_H_

#include <optional>
#include <vector>

#include "src/03_hooked/session_run_hook.h"

namespace mts {

/// Runs `final_ops` in End() and keeps their values.
class FinalOpsHook : public SessionRunHook {
 public:
  /// Will run `final_ops`, feeding `final_ops_feed_dict`, at the end.
  explicit FinalOpsHook(std::vector<Output> final_ops, FeedDict final_ops_feed_dict = {});

  /// Runs the final ops on `session` and stores their values.
  /// \throws OutOfRangeError (after logging a warning) if a final op reads exhausted input;
  ///   whatever else the run throws. Either way final_ops_values() stays empty.
  void End(SessionInterface& session) override;

  /// The values of the final ops, in their order; std::nullopt until End() has run them.
  const std::optional<std::vector<Tensor>>& final_ops_values() const {
    return final_ops_values_;
  }

 private:
  std::vector<Output> final_ops_;
  FeedDict final_ops_feed_dict_;
  std::optional<std::vector<Tensor>> final_ops_values_;
};

}  // namespace mts

#endif  // MTS_SRC_03_HOOKED_HOOKS_FINAL_OPS_HOOK_H_
