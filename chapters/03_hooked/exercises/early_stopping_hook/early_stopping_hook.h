// early_stopping_hook.h: an exercise of chapter 03. A hook that ends training once the loss
// has stopped improving.
//
//   HookedSession      calls this hook around every run
//     Session          the loss is fetched in the same run as the train op
//
// Training longer than a model can learn wastes machines, and on a validation loss it
// over-fits. The usual remedy, *early stopping*, watches the loss and gives up after
// `patience` steps in a row without a real improvement. "Real" means better than the best
// loss so far by more than `min_delta`, so that noise of a few parts in a million does not
// keep a finished job alive.
//
// The hook fetches the loss in every run (a scalar, float32 or float64), never in a run of
// its own. Its contract:
//   - best is the lowest loss that counted as an improvement; the first loss that can be
//     compared with anything counts, and later ones count when lower than best by more
//     than min_delta;
//   - every run whose loss does not count adds one to steps_without_improvement, an
//     improvement sets it back to 0, and the run that makes it reach `patience` requests
//     the stop;
//   - a NaN loss is never an improvement, not even as the first loss: it cannot become
//     best (nothing would ever be lower than it), and it counts as a run without one.
//
// Lifecycle: construct; Begin (forgets best and the count, so a hook object can watch a
// second training); BeforeRun / AfterRun per step.
//
// Thread safety: one thread calls a hook.
//
// Example:
//   auto early_stop = std::make_shared<EarlyStoppingHook>(loss, /*patience=*/100,
//                                                         /*min_delta=*/1e-4);
//   HookedSession session(std::move(raw), {early_stop});
//   while (!session.ShouldStop()) session.Run(train_op);
//
// TensorFlow: tf.estimator.experimental.stop_if_no_decrease_hook is the closest relative
// (it reads evaluation results from disk); Keras has tf.keras.callbacks.EarlyStopping.
#ifndef MTS_CHAPTERS_03_HOOKED_EXERCISES_EARLY_STOPPING_HOOK_EARLY_STOPPING_HOOK_H_
#define MTS_CHAPTERS_03_HOOKED_EXERCISES_EARLY_STOPPING_HOOK_EARLY_STOPPING_HOOK_H_

#include <cstdint>
#include <optional>

#include "src/03_hooked/session_run_hook.h"

namespace mts {

// [mts:early-stopping-api]
/// Requests a stop after `patience` runs in a row without the loss improving by `min_delta`.
class EarlyStoppingHook : public SessionRunHook {
 public:
  /// Watches `loss`, a scalar float32 or float64 tensor.
  /// \throws ValueError unless patience >= 1 and min_delta >= 0 (given).
  EarlyStoppingHook(const Output& loss, int64_t patience, double min_delta = 0.0);

  /// Forgets the best loss and the count (given).
  void Begin() override;
  /// Adds the loss to the run's fetches (yours).
  SessionRunArgs BeforeRun(SessionRunContext& run_context) override;
  /// Updates best and the count from the fetched loss; requests a stop when the count
  /// reaches patience (yours).
  void AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) override;

  /// The best loss so far, or std::nullopt before the first run.
  std::optional<double> best_loss() const { return best_loss_; }
  /// Runs since the last improvement.
  int64_t steps_without_improvement() const { return steps_without_improvement_; }

 private:
  Output loss_;
  int64_t patience_;
  double min_delta_;
  std::optional<double> best_loss_;
  int64_t steps_without_improvement_ = 0;
};
// [mts:early-stopping-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_03_HOOKED_EXERCISES_EARLY_STOPPING_HOOK_EARLY_STOPPING_HOOK_H_
