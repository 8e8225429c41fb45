#include "src/03_hooked/hooks/profiler_hook.h"

#include <utility>

#include "src/01_session/training_util.h"
#include "src/03_hooked/events/summary_writer_cache.h"
#include "src/03_hooked/hooks/timeline.h"
#include "src/platform/errors.h"
#include "src/platform/logging.h"

namespace mts {

ProfilerHook::ProfilerHook(ProfilerHookOptions options)
    : output_dir_(std::move(options.output_dir)),
      show_dataflow_(options.show_dataflow),
      show_memory_(options.show_memory),
      fs_(options.fs != nullptr ? options.fs : DefaultFileSystem()),
      timer_(options.save_secs, options.save_steps, options.clock) {}

void ProfilerHook::Begin() {
  // The directory's shared writer runs on its own clock and file system, not this hook's:
  // it outlives the hook.
  writer_ = SummaryWriterCache::Get(output_dir_.empty() ? "." : output_dir_);
  next_step_.reset();
  std::optional<Output> read = GetOrCreateGlobalStepRead();
  if (!read) throw RuntimeError("Global step should be created to use ProfilerHook.");
  global_step_read_ = *read;
}

SessionRunArgs ProfilerHook::BeforeRun(SessionRunContext& run_context) {
  trace_this_run_ = next_step_.has_value() && timer_.ShouldTriggerForStep(*next_step_);
  SessionRunArgs args;
  args.fetches = {global_step_read_};
  if (trace_this_run_) args.options.trace_level = RunOptions::TraceLevel::kFullTrace;
  return args;
}

// [mts:profiler-after-run]
void ProfilerHook::AfterRun(SessionRunContext& run_context,
                            const SessionRunValues& run_values) {
  const int64_t stale_step = run_values.results[0].scalar<int64_t>();
  // The first run is never traced; it starts the interval, so the first trace comes a full
  // interval later.
  if (!next_step_) timer_.UpdateLastTriggeredStep(stale_step);
  int64_t step = stale_step + 1;
  if (trace_this_run_) {
    // The file is named after the exact step this run ended at, so read it.
    step = GlobalStepValue(run_context.session(), global_step_read_);
    timer_.UpdateLastTriggeredStep(step);
    const std::string path = TimelinePath(step);
    MTS_LOG(INFO) << "Saving timeline for " << step << " into '" << path << "'.";
    if (!output_dir_.empty()) fs_->CreateDirectories(output_dir_);
    Timeline timeline(run_values.run_metadata, run_context.session().graph());
    fs_->WriteFileAtomically(path,
                             timeline.GenerateChromeTraceFormat(show_dataflow_, show_memory_));
    // For TensorBoard's Graphs tab: the same timings, joined to the graph's nodes by name.
    writer_->AddRunMetadata(run_values.run_metadata, "step_" + std::to_string(step));
  }
  next_step_ = step + 1;
}
// [mts:profiler-after-run-end]

std::string ProfilerHook::TimelinePath(int64_t step) const {
  const std::string name = "timeline-" + std::to_string(step) + ".json";
  return output_dir_.empty() ? name : JoinPath(output_dir_, name);
}

}  // namespace mts
