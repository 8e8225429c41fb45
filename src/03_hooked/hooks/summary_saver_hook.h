// summary_saver_hook.h: every N steps or seconds, runs the summary op with the training step
// and writes what it returns into the event file, at the global step.
//
// Stage 03, a hook: it adds the summary op to the runs it picks (the first, then whenever
// its SecondOrStepTimer triggers for the step the run ends at) and writes the Summaries; after
// the first run also SessionLog START. The summary ops are those given, else the Scaffold's
// summary_op; the writer is the one given, else SummaryWriterCache's for output_dir.
//
// Lifecycle: Begin; BeforeRun / AfterRun per step; End (flushes the writer). One thread
// calls a hook.
//
// TensorFlow: tf.train.SummarySaverHook (tensorflow/python/training/basic_session_run_hooks.py).
#ifndef MTS_SRC_03_HOOKED_HOOKS_SUMMARY_SAVER_HOOK_H_
#define MTS_SRC_03_HOOKED_HOOKS_SUMMARY_SAVER_HOOK_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/03_hooked/events/file_writer.h"
#include "src/03_hooked/hooks/second_or_step_timer.h"
#include "src/03_hooked/session_run_hook.h"
#include "src/platform/clock.h"

namespace mts {

class Scaffold;

/// What a SummarySaverHook writes, where and how often: TensorFlow's keyword arguments,
/// with its defaults, and the clock. Exactly one of save_steps and save_secs, and exactly
/// one of scaffold and summary_op, must be set.
struct SummarySaverHookOptions {
  /// Write every this many global steps.
  std::optional<int64_t> save_steps;
  /// Or write every this many seconds.
  std::optional<double> save_secs;
  /// Write to the SummaryWriterCache writer of this directory, unless summary_writer is
  /// given; empty with no writer: write nothing.
  std::string output_dir;
  /// The writer to use; null: output_dir's.
  std::shared_ptr<FileWriter> summary_writer;
  /// Whose summary op to run (read when the hook runs, once the scaffold is finalized).
  std::shared_ptr<const Scaffold> scaffold;
  /// Or the summary ops to run: string tensors of serialized Summaries; empty: not given.
  std::vector<Output> summary_op;
  /// Where save_secs are measured; null: RealClock().
  Clock* clock = nullptr;
};

/// Writes the summary op's output every N steps or seconds, at the global step.
class SummarySaverHook : public SessionRunHook {
 public:
  /// TensorFlow's `SummarySaverHook(save_steps=None, save_secs=None, output_dir=None,
  /// summary_writer=None, scaffold=None, summary_op=None)`: the keyword arguments are the
  /// fields of `options`.
  /// \throws ValueError "Exactly one of scaffold or summary_op must be provided.";
  ///   ValueError as SecondOrStepTimer's constructor for the frequencies (so the default
  ///   options always throw, as TensorFlow's do).
  explicit SummarySaverHook(SummarySaverHookOptions options);

  /// Gets output_dir's writer if none was given; finds (or makes) the global step's read
  /// tensor; forgets next_step, so the next run writes START and a summary.
  /// \throws RuntimeError "Global step should be created to use SummarySaverHook." if the
  ///   graph has no global step; OpError if the writer cannot create output_dir.
  void Begin() override;
  /// Fetches the read tensor, and the summary ops on the first run or when the timer
  /// triggers at next_step.
  SessionRunArgs BeforeRun(SessionRunContext& run_context) override;
  /// Writes START after the first run and the fetched summaries, at the real step.
  /// \throws InvalidArgumentError if a summary op returned bytes that are not a Summary.
  void AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) override;
  /// Flushes the writer (a write that fails is logged by it, not raised: FileWriter::Flush).
  void End(SessionInterface& session) override;

 private:
  // The summary ops to fetch: those given, else the scaffold's; empty if there are none.
  std::vector<Output> SummaryOps() const;

  SecondOrStepTimer timer_;
  std::string output_dir_;
  std::shared_ptr<FileWriter> summary_writer_;
  std::shared_ptr<const Scaffold> scaffold_;
  std::vector<Output> summary_op_;
  Output global_step_read_;
  std::optional<int64_t> next_step_;  // The step the coming run should end at.
  bool request_summary_ = false;      // Decided by BeforeRun for its AfterRun.
  size_t fetched_summaries_ = 0;      // How many summary ops this run fetched.
};

}  // namespace mts

#endif  // MTS_SRC_03_HOOKED_HOOKS_SUMMARY_SAVER_HOOK_H_
