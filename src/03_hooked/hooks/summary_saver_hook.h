// summary_saver_hook.h: every N steps or seconds, runs the summary op with the training step
// and writes what it returns into the event file, at the global step.
//
//   RecoverableSession
//     CoordinatedSession
//       HookedSession      <-- SummarySaverHook adds the summary op to chosen runs (this file)
//         Chief / Worker
//           Session        runs the summary ops (summary_ops.h) beside the train op
//   FileWriter             the serialized Summaries go to output_dir's event file
//
// A summary costs a pass over the ops that feed it, so it is fetched only on the runs the
// timer picks, and in the same run as the train op, never in a run of its own. The first
// run is always one of them. The hook keeps `next_step`, the step the coming run should end
// at, and asks the timer about it before the run (BeforeRun must decide what to fetch).
// After a run that fetched the summary, and after the first run, it reads the real step
// with a raw run; otherwise it trusts stale + 1. Then:
//   1. after the first run only: SessionLog START at the step, which tells TensorBoard to
//      drop events a restarted job had written past this step;
//   2. when the summary was fetched: each returned Summary at the step;
//   3. next_step = step + 1.
// With save_steps=8 from step 0, summaries land at steps 1, 9, 17, 25. End flushes the
// writer, so everything is on disk when training ends.
//
// The summary ops are those given, else the Scaffold's summary_op (read at each run, as it
// is set when the Scaffold is finalized, after this hook is made). The writer is the one
// given, else the SummaryWriterCache writer of output_dir. With neither, the hook writes
// nothing (and, as in TensorFlow, keeps fetching the summary every run).
//
// Lifecycle: construct; Begin (writer, read tensor, next_step forgotten); BeforeRun /
// AfterRun per step; End (flush).
//
// Thread safety: one thread calls a hook.
//
// Example:
//   ScalarSummary("loss", loss);
//   SummarySaverHookOptions options;
//   options.save_steps = 100;
//   options.output_dir = "/tmp/run";
//   options.summary_op = {*MergeAllSummaries()};
//   auto summaries = std::make_shared<SummarySaverHook>(options);
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
