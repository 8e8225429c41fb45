// feed_fn_hook.h: feeds every run with what a function returns.
//
// Stage 03, a hook, the simplest input pipeline: before each run it calls the function and
// hands the FeedDict it returns to HookedSession, which adds it to the run's feeds. The
// caller's own feeds must not name the same tensors (RuntimeError, before the run).
//
// Lifecycle: construct with the function; BeforeRun per step calls it once. Thread safety:
// one thread calls a hook, hence the function.
//
// Example:
//   auto feeder = std::make_shared<FeedFnHook>([&] { return FeedDict{{x, batches.Next()}}; });
//
// TensorFlow: tf.train.FeedFnHook (tensorflow/python/training/basic_session_run_hooks.py).
#ifndef MTS_SRC_03_HOOKED_HOOKS_FEED_FN_HOOK_H_
#define MTS_SRC_03_HOOKED_HOOKS_FEED_FN_HOOK_H_

#include <functional>

#include "src/03_hooked/session_run_hook.h"

namespace mts {

/// Adds `feed_fn()` to the feeds of every run.
class FeedFnHook : public SessionRunHook {
 public:
  /// Calls `feed_fn` before each run for that run's feeds.
  explicit FeedFnHook(std::function<FeedDict()> feed_fn) : feed_fn_(std::move(feed_fn)) {}

  /// Returns the feeds `feed_fn()` gives, and no fetches.
  /// \throws whatever feed_fn throws (the run does not happen).
  SessionRunArgs BeforeRun(SessionRunContext& run_context) override {
    SessionRunArgs args;
    args.feeds = feed_fn_();
    return args;
  }

 private:
  std::function<FeedDict()> feed_fn_;
};

}  // namespace mts

#endif  // MTS_SRC_03_HOOKED_HOOKS_FEED_FN_HOOK_H_
