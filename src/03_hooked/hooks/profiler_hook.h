// profiler_hook.h: every N steps or seconds, traces one run and saves its op timings as a
// Chrome trace, timeline-<step>.json.
//
// Stage 03, a hook: on the runs its SecondOrStepTimer picks (never the first), it asks for
// RunOptions::TraceLevel::kFullTrace, then writes <output_dir>/timeline-<step>.json
// (timeline.h) and a tagged_run_metadata event "step_<step>" through SummaryWriterCache's
// writer of output_dir (empty: the working directory).
//
// Lifecycle: Begin; BeforeRun / AfterRun per step. One thread calls a hook.
//
// Example: options.save_steps = 100; options.output_dir = "/tmp/run";  // then open
//          timeline-100.json in ui.perfetto.dev
//
// TensorFlow: tf.train.ProfilerHook (tensorflow/python/training/basic_session_run_hooks.py).
#ifndef MTS_SRC_03_HOOKED_HOOKS_PROFILER_HOOK_H_
#define MTS_SRC_03_HOOKED_HOOKS_PROFILER_HOOK_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "src/03_hooked/events/file_writer.h"
#include "src/03_hooked/hooks/second_or_step_timer.h"
#include "src/03_hooked/session_run_hook.h"
#include "src/platform/clock.h"
#include "src/platform/file_system.h"

namespace mts {

/// What a ProfilerHook traces, how often and where it writes: TensorFlow's keyword
/// arguments, with its defaults, and the seams. Exactly one of save_steps and save_secs must
/// be set.
struct ProfilerHookOptions {
  /// Trace one run every this many global steps.
  std::optional<int64_t> save_steps;
  /// Or every this many seconds.
  std::optional<double> save_secs;
  /// Where the `timeline-<step>.json` files go, created when the first is written; "": the
  /// working directory.
  std::string output_dir;
  /// Draw tensor arrows between ops.
  bool show_dataflow = true;
  /// Accepted for TensorFlow's sake; adds nothing in mts (see timeline.h).
  bool show_memory = false;
  /// Where save_secs are measured; null: RealClock().
  Clock* clock = nullptr;
  /// Where the timeline files are written; null: DefaultFileSystem(). (The run metadata
  /// goes through output_dir's shared writer, which uses its own.)
  FileSystem* fs = nullptr;
};

/// Saves a Chrome trace of one run every `save_steps` steps or `save_secs` seconds.
class ProfilerHook : public SessionRunHook {
 public:
  /// TensorFlow's `ProfilerHook(save_steps=None, save_secs=None, output_dir='',
  /// show_dataflow=True, show_memory=False)`: the keyword arguments are the fields of
  /// `options`.
  /// \throws ValueError as SecondOrStepTimer's constructor, with its messages, unless
  ///   exactly one of save_steps and save_secs is set.
  explicit ProfilerHook(ProfilerHookOptions options);

  /// Gets output_dir's writer from SummaryWriterCache (a new one writes the graph event);
  /// finds (or makes) the global step's read tensor; forgets next_step.
  /// \throws RuntimeError "Global step should be created to use ProfilerHook." if the graph
  ///   has no global step.
  void Begin() override;
  /// Fetches the read tensor; asks for a full trace if the timer triggers at next_step.
  SessionRunArgs BeforeRun(SessionRunContext& run_context) override;
  /// Arms the timer on the first run; after a traced run, writes `timeline-<step>.json` and
  /// adds the run's RunMetadata to the writer under the tag `step_<step>`.
  /// \throws OpError if the file cannot be written; ValueError "The provided tag was already
  ///   used for this event type" if a step is traced twice into one writer (a job resumed
  ///   from an older checkpoint in the same process), as TensorFlow's writer raises.
  void AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) override;

  /// The path of the trace for `step`: `<output_dir>/timeline-<step>.json`.
  std::string TimelinePath(int64_t step) const;

 private:
  std::string output_dir_;
  bool show_dataflow_;
  bool show_memory_;
  FileSystem* fs_;
  SecondOrStepTimer timer_;
  std::shared_ptr<FileWriter> writer_;  // output_dir's, from Begin.
  Output global_step_read_;
  std::optional<int64_t> next_step_;  // The step the coming run ends at; none before the first.
  bool trace_this_run_ = false;       // Set by BeforeRun for its AfterRun.
};

}  // namespace mts

#endif  // MTS_SRC_03_HOOKED_HOOKS_PROFILER_HOOK_H_
