#include "src/03_hooked/hooks/logging_tensor_hook.h"

#include <cstdio>

#include "src/platform/errors.h"
#include "src/platform/logging.h"

namespace mts {

namespace {

std::vector<std::pair<std::string, Output>> TaggedByName(const std::vector<Output>& tensors) {
  std::vector<std::pair<std::string, Output>> tagged;
  for (const Output& t : tensors) tagged.emplace_back(t.name(), t);
  return tagged;
}

}  // namespace

LoggingTensorHook::LoggingTensorHook(const std::map<std::string, Output>& tensors,
                                     LoggingTensorHookOptions options)
    : LoggingTensorHook(std::vector<Output>{}, std::move(options)) {
  tensors_.assign(tensors.begin(), tensors.end());
}

LoggingTensorHook::LoggingTensorHook(const std::vector<Output>& tensors,
                                     LoggingTensorHookOptions options)
    : tensors_(TaggedByName(tensors)),
      at_end_(options.at_end),
      formatter_(std::move(options.formatter)) {
  const std::optional<int64_t>& every_n_iter = options.every_n_iter;
  const std::optional<double>& every_n_secs = options.every_n_secs;
  const bool only_at_end = at_end_ && !every_n_iter && !every_n_secs;
  if (!only_at_end && every_n_iter.has_value() == every_n_secs.has_value()) {
    throw ValueError(
        "either at_end and/or exactly one of every_n_iter and every_n_secs must be provided.");
  }
  if (every_n_iter && *every_n_iter <= 0) {
    throw ValueError("invalid every_n_iter=" + std::to_string(*every_n_iter) + ".");
  }
  if (!only_at_end) timer_.emplace(every_n_secs, every_n_iter, options.clock);
}

void LoggingTensorHook::Begin() {
  if (timer_) timer_->Reset();
  iter_count_ = 0;
}

SessionRunArgs LoggingTensorHook::BeforeRun(SessionRunContext& run_context) {
  should_trigger_ = timer_ && timer_->ShouldTriggerForStep(iter_count_);
  SessionRunArgs args;
  if (should_trigger_) {
    for (const auto& [tag, tensor] : tensors_) args.fetches.push_back(tensor);
  }
  return args;
}

void LoggingTensorHook::AfterRun(SessionRunContext& run_context,
                                 const SessionRunValues& run_values) {
  if (should_trigger_) LogTensors(run_values.results);
  ++iter_count_;
}

void LoggingTensorHook::End(SessionInterface& session) {
  if (!at_end_) return;
  std::vector<Output> fetches;
  for (const auto& [tag, tensor] : tensors_) fetches.push_back(tensor);
  LogTensors(session.Run(fetches));
}

void LoggingTensorHook::LogTensors(const std::vector<Tensor>& values) {
  // With at_end alone there is no timer, hence no previous line to measure from.
  std::optional<double> elapsed_secs;
  if (timer_) elapsed_secs = timer_->UpdateLastTriggeredStep(iter_count_).secs;
  if (formatter_) {
    std::map<std::string, Tensor> by_tag;
    for (size_t i = 0; i < tensors_.size(); ++i) by_tag.emplace(tensors_[i].first, values[i]);
    MTS_LOG(INFO) << formatter_(by_tag);
    return;
  }
  std::string line;
  for (size_t i = 0; i < tensors_.size(); ++i) {
    line += (i ? ", " : "") + tensors_[i].first + " = " + values[i].ToString();
  }
  if (elapsed_secs) {
    char secs[32];
    std::snprintf(secs, sizeof(secs), " (%.3f sec)", *elapsed_secs);
    line += secs;
  }
  MTS_LOG(INFO) << line;
}

}  // namespace mts
