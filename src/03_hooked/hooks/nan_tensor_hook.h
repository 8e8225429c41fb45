// nan_tensor_hook.h: watches the loss and ends training when it becomes NaN, by failing or
// by stopping.
//
// Stage 03, a hook: every run fetches the loss. If any element is NaN (infinities pass), it
// either fails (the default: logs "Model diverged with loss = NaN." at ERROR and throws
// NanLossDuringTrainingError, which is no preemption and no clean end) or stops (logs the
// same as a WARNING and requests a stop, a clean end).
//
// Lifecycle: construct with the loss; BeforeRun / AfterRun per step. Thread safety: one
// thread calls a hook.
//
// Example: auto nan_stop = std::make_shared<NanTensorHook>(loss, /*fail_on_nan_loss=*/false);
//
// TensorFlow: tf.train.NanTensorHook, tf.train.NanLossDuringTrainingError
// (basic_session_run_hooks.py).
#ifndef MTS_SRC_03_HOOKED_HOOKS_NAN_TENSOR_HOOK_H_
#define MTS_SRC_03_HOOKED_HOOKS_NAN_TENSOR_HOOK_H_

#include "src/03_hooked/session_run_hook.h"
#include "src/platform/errors.h"

namespace mts {

/// What NanTensorHook throws when the loss is NaN: a RuntimeError whose message is
/// "NaN loss during training.".
class NanLossDuringTrainingError : public RuntimeError {
 public:
  /// The error, with TensorFlow's message.
  NanLossDuringTrainingError() : RuntimeError("NaN loss during training.") {}
};

/// Fails, or requests a stop, when the loss is NaN.
class NanTensorHook : public SessionRunHook {
 public:
  /// Watches `loss_tensor`, a float32 or float64 tensor; `fail_on_nan_loss` chooses between
  /// throwing (true) and requesting a stop (false).
  explicit NanTensorHook(const Output& loss_tensor, bool fail_on_nan_loss = true);

  /// Fetches the loss.
  SessionRunArgs BeforeRun(SessionRunContext& run_context) override;
  /// Checks the fetched loss for NaN.
  /// \throws NanLossDuringTrainingError if the loss is NaN and fail_on_nan_loss; the run has
  ///   happened (its updates are in the variables) and no stop is recorded.
  void AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) override;

 private:
  Output loss_tensor_;
  bool fail_on_nan_loss_;
};

}  // namespace mts

#endif  // MTS_SRC_03_HOOKED_HOOKS_NAN_TENSOR_HOOK_H_
