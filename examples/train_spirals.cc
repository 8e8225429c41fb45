// train_spirals: the main example. A small neural network learns three interleaved
// spirals through MonitoredTrainingSession, with checkpoints, TensorBoard event files and
// resumption; stop it at any moment and run it again.
//
//   MonitoredTrainingSession  <-- this example: the whole stack, as a TF1 user sees it
//     MonitoredSession          hooks: stop at --steps, checkpoints, summaries, SIGTERM
//       RecoverableSession ... Session
//
// The TensorFlow 1.x program it mirrors (examples/train_spirals_session.cc is the same model
// trained in a plain Session loop, with every chore done by hand):
//
//   train_op = tf.train.AdamOptimizer(0.02).minimize(loss, global_step)
//   hooks = [tf.train.StopAtStepHook(last_step=FLAGS.steps), tf.train.NanTensorHook(loss)]
//   with tf.train.MonitoredTrainingSession(checkpoint_dir=FLAGS.checkpoint_dir,
//                                          hooks=hooks) as sess:
//       while not sess.should_stop():
//           sess.run(train_op, feed_dict=batch_of(step))
//
// What MonitoredTrainingSession does here without being asked: initialises the variables,
// or restores them from the newest checkpoint in --checkpoint_dir; saves a checkpoint every
// 10 minutes and at the end; writes the loss and accuracy summaries every 100 steps and the
// steps per second (TensorBoard: `tensorboard --logdir /tmp/mts_spirals`); on SIGTERM or
// Ctrl-C, stops after the step and saves. So does this program when nobody reads its output
// any more (`train_spirals | head -3`: example_output.h). Run it a second time with a larger --steps and it
// resumes where the first run stopped: the global step, the weights, Adam's moments and the
// position in the data (a function of the global step, see spirals_model.h) all come back,
// so the losses are those an uninterrupted run prints (tests/06_monitored/examples checks
// that bit for bit). Besides what MonitoredTrainingSession writes, the program itself adds
// to the same event file the run's flags as a text summary, once, and every --image_every
// steps a picture of the decision regions (TensorBoard's Text and Images tabs), the way a TF1
// program calls `writer.add_summary(sess.run(image_summary), step)`.
//
// Usage:
//   bazel run //examples:train_spirals -- --steps=300
//   bazel run //examples:train_spirals -- --steps=600   # resumes at step 300
//   bazel run //examples:train_spirals -- --help
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "examples/example_output.h"
#include "examples/spirals_model.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/graph.h"
#include "src/01_session/learning/summary_ops.h"
#include "src/01_session/training_util.h"
#include "src/02_chief_worker/checkpoint/checkpoint_file.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/02_chief_worker/checkpoint/latest_sound_checkpoint.h"
#include "src/02_chief_worker/scaffold.h"
#include "src/03_hooked/events/summary_writer_cache.h"
#include "src/03_hooked/hooks/final_ops_hook.h"
#include "src/03_hooked/hooks/nan_tensor_hook.h"
#include "src/03_hooked/hooks/stop_at_step_hook.h"
#include "src/06_monitored/monitored_session_scope.h"
#include "src/06_monitored/monitored_training_session.h"
#include "src/06_monitored/signal_stop_hook.h"
#include "src/platform/file_system.h"
#include "tools/command_line.h"
#include "tools/working_directory.h"

ABSL_FLAG(int64_t, steps, 1000, "Train until the global step reaches this many steps.");
ABSL_FLAG(std::string, checkpoint_dir, "/tmp/mts_spirals",
          "Where checkpoints and TensorBoard event files go; a run resumes from the newest "
          "checkpoint found here.");
ABSL_FLAG(double, learning_rate, 0.02, "Adam's learning rate: a positive finite number.");
ABSL_FLAG(int64_t, log_every, 100,
          "Print the loss and accuracy on all the points every this many steps.");
ABSL_FLAG(int64_t, batch_size, 32, "Points per mini-batch: 1 to the 300 training points.");
ABSL_FLAG(int64_t, image_every, 200,
          "Write a picture of the decision regions to TensorBoard's Images tab every this "
          "many steps; 0 writes none.");

namespace {

using namespace mts;

// Seeds the order of the mini-batches: change it and the run sees the data differently.
constexpr uint64_t kBatchSeed = 7;

// Prints a line of progress. Once nobody reads stdout (`train_spirals | head -3` after its
// third line) the training loop is asked to stop after the step, as on SIGTERM: the final
// checkpoint is written and the event file flushed (example_output.h).
template <typename... Args>
void Say(const char* format, Args... args) {
  if (!PrintLine(format, args...)) SignalStopHook::RequestStopForClosedStdout();
}

// Prints the loss and accuracy on every point (a run of the raw session: no hook sees it)
// and the speed since the previous line.
class ProgressPrinter {
 public:
  ProgressPrinter(const SpiralsModel& model, FeedDict full_feed)
      : model_(model), full_feed_(std::move(full_feed)), last_(Clock::now()) {}

  void Print(SessionInterface& raw_session, int64_t step, int64_t steps_since_last) {
    const std::vector<Tensor> values = raw_session.Run({model_.loss, model_.accuracy}, full_feed_);
    const Clock::time_point now = Clock::now();
    const double seconds = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    Say("step %5lld  loss %.4f  accuracy %.3f  (%.0f steps/sec)", static_cast<long long>(step),
        values[0].scalar<float>(), values[1].scalar<float>(), steps_since_last / seconds);
  }

 private:
  using Clock = std::chrono::steady_clock;
  const SpiralsModel& model_;
  const FeedDict full_feed_;
  Clock::time_point last_;
};

// What the program adds to the event file of the MonitoredTrainingSession's hooks (the
// writer SummaryWriterCache shares per directory): the flags as a text summary, and the
// picture of the decision regions every `image_every` steps. Both run on the raw session,
// with feeds of their own, so no hook sees them.
class ExtraSummaries {
 public:
  ExtraSummaries(const SpiralsModel& model, const SpiralsData& data, int64_t image_every)
      : image_every_(image_every),
        flags_(TextSummary("flags", Constant(Tensor::Vector<std::string>(FlagLines())), {})) {
    if (image_every_ > 0) picture_ = BuildSpiralsPicture(model, data);
  }

  // Writes the flags at `step`: once per run of the program.
  void WriteFlags(SessionInterface& raw_session, const std::string& logdir, int64_t step) {
    Write(raw_session.Run(flags_, {}), logdir, step);
  }

  // Writes the picture if `step` is a multiple of --image_every.
  void MaybeWritePicture(SessionInterface& raw_session, const std::string& logdir, int64_t step) {
    if (!picture_ || step % image_every_ != 0) return;
    Write(raw_session.Run(picture_->summary, picture_->feed), logdir, step);
  }

 private:
  // "--name=value" for each flag of this program, in the order they are declared above.
  static std::vector<std::string> FlagLines() {
    std::vector<std::string> lines;
    for (const char* name :
         {"steps", "checkpoint_dir", "learning_rate", "log_every", "batch_size", "image_every"}) {
      lines.push_back("--" + std::string(name) + "=" +
                      absl::FindCommandLineFlag(name)->CurrentValue());
    }
    return lines;
  }

  static void Write(const Tensor& summary, const std::string& logdir, int64_t step) {
    SummaryWriterCache::Get(logdir)->AddSummary(summary.scalar<std::string>(), step);
  }

  const int64_t image_every_;
  const Output flags_;
  std::optional<SpiralsPicture> picture_;
};

// Checks the flags; "" if they are usable, else what is wrong with them and what to do.
std::string FlagProblem(int64_t num_points) {
  const double learning_rate = absl::GetFlag(FLAGS_learning_rate);
  const int64_t batch_size = absl::GetFlag(FLAGS_batch_size);
  if (absl::GetFlag(FLAGS_steps) <= 0) return "--steps must be positive";
  if (absl::GetFlag(FLAGS_log_every) <= 0) return "--log_every must be positive";
  if (absl::GetFlag(FLAGS_image_every) < 0) return "--image_every must be 0 (no pictures) or more";
  if (absl::GetFlag(FLAGS_checkpoint_dir).empty()) return "--checkpoint_dir must not be empty";
  // A NaN or infinite rate turns every weight into NaN at the first step; a rate <= 0 does
  // not train at all.
  if (!std::isfinite(learning_rate) || learning_rate <= 0) {
    return "--learning_rate must be a positive finite number, got " +
           std::to_string(learning_rate) + " (try 0.02)";
  }
  if (batch_size <= 0 || batch_size > num_points) {
    return "--batch_size must be between 1 and the " + std::to_string(num_points) +
           " training points, got " + std::to_string(batch_size);
  }
  return "";
}

// The checkpoint a session in `dir` would restore (the newest that passes its checksums)
// and the global step it holds; nullopt if there is none or it cannot be read, which the
// session then finds out again and reports.
std::optional<std::pair<std::string, int64_t>> CheckpointToResume(const std::string& dir) {
  try {
    const CheckpointToRestore checkpoint = LatestSoundCheckpoint(dir);
    if (!checkpoint.path) return std::nullopt;
    const CheckpointReader reader(*DefaultFileSystem(), *checkpoint.path);
    return std::make_pair(*checkpoint.path, reader.Read("global_step").scalar<int64_t>());
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

int Train() {
  const SpiralsData data = SpiralsTrainingData();
  const int64_t num_points = data.x.shape().dim(0);
  if (const std::string problem = FlagProblem(num_points); !problem.empty()) {
    std::fprintf(stderr, "train_spirals: %s; see --help.\n", problem.c_str());
    return 2;
  }
  const int64_t steps = absl::GetFlag(FLAGS_steps);
  const int64_t log_every = absl::GetFlag(FLAGS_log_every);
  const int64_t batch_size = absl::GetFlag(FLAGS_batch_size);
  const std::string checkpoint_dir = absl::GetFlag(FLAGS_checkpoint_dir);

  // 0. Nothing to do is found out before a session exists: a session would write
  //    graph.pbtxt, a checkpoint, the state file and an event file, all for nothing.
  if (const auto resume = CheckpointToResume(checkpoint_dir); resume && resume->second >= steps) {
    Say("%s is at step %lld, which already reaches --steps=%lld: nothing to train (raise "
        "--steps); nothing was written.",
        resume->first.c_str(), static_cast<long long>(resume->second),
        static_cast<long long>(steps));
    return 0;
  }

  // 1. The graph: the model, then hooks of our own besides the default ones.
  Graph graph;
  DefaultGraphScope as_default(graph);
  SpiralsModel model = BuildSpiralsModel(absl::GetFlag(FLAGS_learning_rate));
  SpiralsBatches batches(data, batch_size, kBatchSeed);
  ExtraSummaries extra(model, data, absl::GetFlag(FLAGS_image_every));
  // FinalOpsHook measures the trained model at the clean close, on every point.
  auto final_ops = std::make_shared<FinalOpsHook>(
      std::vector<Output>{model.global_step, model.loss, model.accuracy}, batches.FullFeed(model));

  // The scaffold's init_fn runs only when there was no checkpoint to restore: it tells a
  // fresh start from a resumption (even one at step 0).
  bool initialized = false;
  ScaffoldOptions scaffold;
  scaffold.init_fn = [&](const Scaffold&, SessionInterface&) { initialized = true; };
  MonitoredTrainingSessionOptions options;
  options.scaffold = std::make_shared<Scaffold>(scaffold);
  options.checkpoint_dir = checkpoint_dir;
  // NanTensorHook ends the run with an error the moment the loss is NaN: a diverged model
  // is not saved as final, and no further checkpoint of it is written.
  options.hooks = {StopAtStepHook::AtLastStep(steps), std::make_shared<NanTensorHook>(model.loss),
                   final_ops};

  // 2. The session: MonitoredTrainingSession initialises, or restores the newest checkpoint
  //    that passes its checksums (falling back past a damaged or missing one), before it
  //    returns. Where it started is read off the restored global step.
  std::unique_ptr<MonitoredSession> session = MonitoredTrainingSession(options);
  const int64_t start_step = session->RunStepFn(
      [&](StepContext& context) { return GlobalStepValue(context.session(), model.global_step); });
  if (!initialized) {
    Say("Resuming from %s at step %lld",
        JoinPath(checkpoint_dir, "model.ckpt-" + std::to_string(start_step)).c_str(),
        static_cast<long long>(start_step));
  } else {
    Say("No checkpoint in %s: starting at step 0", checkpoint_dir.c_str());
  }
  if (start_step >= steps) {
    Say("Step %lld already reaches --steps=%lld: nothing to train (raise --steps).",
        static_cast<long long>(start_step), static_cast<long long>(steps));
    session->Close();
    return 0;
  }
  session->RunStepFn([&](StepContext& context) {
    extra.WriteFlags(context.session(), checkpoint_dir, start_step);
    return 0;
  });
  Say("Training a 2-32-32-3 network on %lld points, batches of %lld, to step %lld",
      static_cast<long long>(num_points), static_cast<long long>(batch_size),
      static_cast<long long>(steps));

  // [mts:train-spirals-loop]
  ProgressPrinter progress(model, batches.FullFeed(model));  // Its clock starts now.
  WithMonitoredSession(*session, [&](MonitoredSession& sess) {
    int64_t last_printed = start_step;
    while (!sess.ShouldStop()) {
      sess.RunStepFn([&](StepContext& context) {
        // The batch is a function of the global step, read from the raw session: after a
        // restore (or a recovery) it continues the data where the checkpoint left it.
        const int64_t step = GlobalStepValue(context.session(), model.global_step);
        context.RunWithHooks({}, batches.Feed(model, step), {model.train_op});
        if ((step + 1) % log_every == 0) {
          progress.Print(context.session(), step + 1, step + 1 - last_printed);
          last_printed = step + 1;
        }
        extra.MaybeWritePicture(context.session(), checkpoint_dir, step + 1);
      });
    }
  });  // A clean close: hooks' End save the final checkpoint and run the final ops.
  // [mts:train-spirals-loop-end]

  const std::vector<Tensor>& final = *final_ops->final_ops_values();
  Say("Stopped at step %lld: loss %.4f, accuracy %.3f on all points",
      static_cast<long long>(final[0].scalar<int64_t>()), final[1].scalar<float>(),
      final[2].scalar<float>());
  Say("Newest checkpoint: %s", LatestCheckpoint(checkpoint_dir).value_or("none").c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // SIGPIPE and SIGXFSZ ignored, as Python does; stdout line by line even into a pipe or a
  // file, so the progress shows as it happens and keeps its place among the library's log
  // lines on stderr.
  mts::SetUpExampleOutput("train_spirals");
  absl::SetProgramUsageMessage(
      "Trains a small network on the spirals with MonitoredTrainingSession. Run it again "
      "with the same --checkpoint_dir and a larger --steps: it resumes where it stopped.");
  // `train_spirals mydir` is refused, not trained in the default directory.
  mts::ParseFlagsOnly(argc, argv, /*hint_flag=*/"checkpoint_dir");
  if (!mts::EnterBuildWorkingDirectory()) return 1;  // A relative --checkpoint_dir is the user's.
  try {
    return Train();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "train_spirals failed: %s\n", e.what());
    return 1;
  }
}
