#include "src/03_hooked/hooks/summary_saver_hook.h"

#include <utility>

#include "src/01_session/training_util.h"
#include "src/02_chief_worker/scaffold.h"
#include "src/03_hooked/events/event.pb.h"
#include "src/03_hooked/events/summary_writer_cache.h"
#include "src/platform/errors.h"

namespace mts {
namespace {

// The timer, after the scaffold/summary_op rule, which TensorFlow checks first.
SecondOrStepTimer MakeTimer(bool has_scaffold, bool has_summary_op,
                            std::optional<int64_t> save_steps, std::optional<double> save_secs,
                            Clock* clock) {
  if (has_scaffold == has_summary_op) {
    throw ValueError("Exactly one of scaffold or summary_op must be provided.");
  }
  return SecondOrStepTimer(save_secs, save_steps, clock);
}

}  // namespace

SummarySaverHook::SummarySaverHook(SummarySaverHookOptions options)
    : timer_(MakeTimer(options.scaffold != nullptr, !options.summary_op.empty(),
                       options.save_steps, options.save_secs, options.clock)),
      output_dir_(std::move(options.output_dir)),
      summary_writer_(std::move(options.summary_writer)),
      scaffold_(std::move(options.scaffold)),
      summary_op_(std::move(options.summary_op)) {}

void SummarySaverHook::Begin() {
  if (summary_writer_ == nullptr && !output_dir_.empty()) {
    summary_writer_ = SummaryWriterCache::Get(output_dir_);
  }
  next_step_.reset();
  std::optional<Output> read = GetOrCreateGlobalStepRead();
  if (!read) throw RuntimeError("Global step should be created to use SummarySaverHook.");
  global_step_read_ = *read;
}

SessionRunArgs SummarySaverHook::BeforeRun(SessionRunContext& run_context) {
  // Decided before the run, on the step it should end at: the fetch list cannot wait.
  request_summary_ = !next_step_ || timer_.ShouldTriggerForStep(*next_step_);
  SessionRunArgs args;
  args.fetches = {global_step_read_};
  fetched_summaries_ = 0;
  if (request_summary_) {
    const std::vector<Output> ops = SummaryOps();
    args.fetches.insert(args.fetches.end(), ops.begin(), ops.end());
    fetched_summaries_ = ops.size();
  }
  return args;
}

// [mts:summary-saver-after-run]
void SummarySaverHook::AfterRun(SessionRunContext& run_context,
                                const SessionRunValues& run_values) {
  // Without a writer nothing is recorded, not even next_step (so, as in TensorFlow, every
  // run keeps fetching the summary).
  if (summary_writer_ == nullptr) return;

  int64_t step = run_values.results[0].scalar<int64_t>() + 1;
  // The events are stamped with the step; the estimate is trusted only when nothing is
  // written at it.
  if (!next_step_ || request_summary_) {
    step = GlobalStepValue(run_context.session(), global_step_read_);
  }
  if (!next_step_) {
    tensorflow::SessionLog start;
    start.set_status(tensorflow::SessionLog::START);
    summary_writer_->AddSessionLog(start, step);
  }
  if (request_summary_) {
    timer_.UpdateLastTriggeredStep(step);
    for (size_t i = 1; i <= fetched_summaries_; ++i) {
      summary_writer_->AddSummary(run_values.results[i].scalar<std::string>(), step);
    }
  }
  next_step_ = step + 1;
}
// [mts:summary-saver-after-run-end]

void SummarySaverHook::End(SessionInterface& session) {
  if (summary_writer_ != nullptr) summary_writer_->Flush();
}

std::vector<Output> SummarySaverHook::SummaryOps() const {
  if (!summary_op_.empty()) return summary_op_;
  if (scaffold_ != nullptr && scaffold_->summary_op()) return {*scaffold_->summary_op()};
  return {};
}

}  // namespace mts
