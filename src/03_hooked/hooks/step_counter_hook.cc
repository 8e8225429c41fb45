#include "src/03_hooked/hooks/step_counter_hook.h"

#include <cstdio>
#include <utility>

#include "src/01_session/summary.pb.h"
#include "src/01_session/training_util.h"
#include "src/03_hooked/events/summary_writer_cache.h"
#include "src/platform/errors.h"
#include "src/platform/logging.h"

namespace mts {
namespace {

// How many steps one run advances the step by (see CheckpointSaverHook).
constexpr int64_t kStepsPerRun = 1;

// The timer, after checking the one rule TensorFlow states in this hook's own words; the
// timer would otherwise raise its own messages.
SecondOrStepTimer MakeTimer(std::optional<int64_t> every_n_steps,
                            std::optional<double> every_n_secs, Clock* clock) {
  if (every_n_steps.has_value() == every_n_secs.has_value()) {
    throw ValueError("exactly one of every_n_steps and every_n_secs should be provided.");
  }
  return SecondOrStepTimer(every_n_secs, every_n_steps, clock);
}

}  // namespace

StepCounterHook::StepCounterHook(StepCounterHookOptions options)
    : timer_(MakeTimer(options.every_n_steps, options.every_n_secs, options.clock)),
      output_dir_(std::move(options.output_dir)),
      summary_writer_(std::move(options.summary_writer)) {}

void StepCounterHook::Begin() {
  if (summary_writer_ == nullptr && !output_dir_.empty()) {
    summary_writer_ = SummaryWriterCache::Get(output_dir_);
  }
  std::optional<Output> read = GetOrCreateGlobalStepRead();
  if (!read) throw RuntimeError("Global step should be created to use StepCounterHook.");
  global_step_read_ = *read;
  summary_tag_ = GetGlobalStep()->op()->name() + "/sec";
}

SessionRunArgs StepCounterHook::BeforeRun(SessionRunContext& run_context) {
  SessionRunArgs args;
  args.fetches = {global_step_read_};
  return args;
}

// [mts:step-counter-after-run]
void StepCounterHook::AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) {
  const int64_t stale_step = run_values.results[0].scalar<int64_t>();
  // The same two stages as CheckpointSaverHook: guess from the stale step, then measure at
  // the real one. The first trigger has no previous one to measure from.
  if (timer_.ShouldTriggerForStep(stale_step + kStepsPerRun)) {
    const int64_t step = GlobalStepValue(run_context.session(), global_step_read_);
    if (timer_.ShouldTriggerForStep(step)) {
      const SecondOrStepTimer::Elapsed elapsed = timer_.UpdateLastTriggeredStep(step);
      // No time at all (a frozen test clock) gives no rate rather than an infinite one.
      if (elapsed.secs && *elapsed.secs > 0) LogAndRecord(*elapsed.steps, *elapsed.secs, step);
    }
  }

  // Compared run to run, not with the timer's step, which may come from a raw read.
  if (last_stale_step_ == stale_step && not_increasing_warnings_ < kMaxNotIncreasingWarnings) {
    ++not_increasing_warnings_;
    // TensorFlow's text, word for word (its names are the Python ones a TF user searches).
    MTS_LOG(WARNING) << "It seems that global step (tf.train.get_global_step) has not been "
                     << "increased. Current value (could be stable): " << stale_step
                     << " vs previous value: " << *last_stale_step_
                     << ". You could increase the global step by passing "
                     << "tf.train.get_global_step() to Optimizer.apply_gradients or "
                     << "Optimizer.minimize.";
  }
  last_stale_step_ = stale_step;
}
// [mts:step-counter-after-run-end]

void StepCounterHook::LogAndRecord(int64_t elapsed_steps, double elapsed_secs, int64_t step) {
  const double steps_per_sec = static_cast<double>(elapsed_steps) / elapsed_secs;
  if (summary_writer_ != nullptr) {
    tensorflow::Summary summary;
    tensorflow::Summary::Value* value = summary.add_value();
    value->set_tag(summary_tag_);
    value->set_simple_value(static_cast<float>(steps_per_sec));
    summary_writer_->AddSummary(summary, step);
  }
  char rate[32];
  std::snprintf(rate, sizeof(rate), "%g", steps_per_sec);
  MTS_LOG(INFO) << summary_tag_ << ": " << rate;
}

}  // namespace mts
