#include "src/03_hooked/hooks/nan_tensor_hook.h"

#include <cmath>

#include "src/platform/logging.h"

namespace mts {

namespace {

template <typename T>
bool AnyNan(const Tensor& t) {
  const T* data = t.data<T>();
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    if (std::isnan(data[i])) return true;
  }
  return false;
}

// Whether any element is NaN; tensors of other types never hold one.
bool HasNan(const Tensor& t) {
  switch (t.dtype()) {
    case DataType::kFloat:
      return AnyNan<float>(t);
    case DataType::kDouble:
      return AnyNan<double>(t);
    default:
      return false;
  }
}

}  // namespace

NanTensorHook::NanTensorHook(const Output& loss_tensor, bool fail_on_nan_loss)
    : loss_tensor_(loss_tensor), fail_on_nan_loss_(fail_on_nan_loss) {}

SessionRunArgs NanTensorHook::BeforeRun(SessionRunContext& run_context) {
  SessionRunArgs args;
  args.fetches = {loss_tensor_};
  return args;
}

void NanTensorHook::AfterRun(SessionRunContext& run_context,
                             const SessionRunValues& run_values) {
  if (!HasNan(run_values.results[0])) return;
  static constexpr char kMessage[] = "Model diverged with loss = NaN.";
  if (fail_on_nan_loss_) {
    MTS_LOG(ERROR) << kMessage;
    throw NanLossDuringTrainingError();
  }
  MTS_LOG(WARNING) << kMessage;
  run_context.RequestStop();
}

}  // namespace mts
