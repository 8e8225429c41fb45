// crash_trainer: the training process the crash campaign kills. The main example's model and
// loop through MonitoredTrainingSession, checkpointing every --save_every steps, reporting
// on stdout what it does so the campaign can tell where each SIGKILL landed.
//
//   crash_campaign             starts this, SIGKILLs it at a random moment, checks the disk
//     crash_trainer            <-- this program
//       MonitoredTrainingSession (checkpoint_dir: restores the newest checkpoint there)
//
//   crash_trainer --checkpoint_dir=DIR --steps=N --save_every=K
//
// Lines written (each one write(2), unbuffered, so a line the parent reads happened):
//   saving S   a checkpoint of step S is about to be written
//   saved S    it is complete: the file and the state file naming it are on disk
//   start S    the first step this process trains is S (it resumed at S)
//   done S     the newest checkpoint is of step S >= --steps: training is over
// Exits 0 after "done", 1 on any error (the message on stderr).
//
// The periodic checkpoints come from a CheckpointSaverHook given as a hook, with a listener
// that writes the saving/saved lines; MonitoredTrainingSession's own one is switched off
// (save_checkpoint_secs = 0) because it takes no listeners. Restoring is
// MonitoredTrainingSession's own: its chief session creator restores the newest checkpoint
// of --checkpoint_dir. No signal handler: SIGKILL cannot be caught, which is the point.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <string>

#include "absl/flags/flag.h"
#include "src/01_session/graph.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/03_hooked/hooks/checkpoint_saver_hook.h"
#include "src/03_hooked/hooks/checkpoint_saver_listener.h"
#include "src/03_hooked/hooks/stop_at_step_hook.h"
#include "src/06_monitored/monitored_session_scope.h"
#include "src/06_monitored/monitored_training_session.h"
#include "tests/campaigns/campaign_training.h"
#include "tools/command_line.h"

ABSL_FLAG(std::string, checkpoint_dir, "", "Where to restore from and save to.");
ABSL_FLAG(int64_t, steps, 300, "Train until the global step reaches this.");
ABSL_FLAG(int64_t, save_every, 10, "Save a checkpoint every this many steps.");

namespace {

using namespace mts;

// One line, one write: what the parent reads was done before the kill.
void Report(const std::string& what, int64_t step) {
  const std::string line = what + " " + std::to_string(step) + "\n";
  if (::write(1, line.data(), line.size()) != static_cast<ssize_t>(line.size())) _exit(3);
}

// Tells the parent about every save, before and after.
class ReportingListener : public CheckpointSaverListener {
 public:
  void BeforeSave(SessionInterface&, int64_t step) override { Report("saving", step); }
  bool AfterSave(SessionInterface&, int64_t step) override {
    Report("saved", step);
    return false;
  }
};

int Train() {
  const std::string dir = absl::GetFlag(FLAGS_checkpoint_dir);
  const int64_t steps = absl::GetFlag(FLAGS_steps);
  if (dir.empty() || steps <= 0 || absl::GetFlag(FLAGS_save_every) <= 0) {
    std::fprintf(stderr, "crash_trainer: --checkpoint_dir, --steps and --save_every needed\n");
    return 2;
  }
  // As the main example does: a run whose newest checkpoint already reaches --steps (a kill
  // landed after the final save) has nothing to train; StopAtStepHook would run one step.
  if (std::optional<std::string> latest = LatestCheckpoint(dir)) {
    const int64_t step = VerifyCheckpoint(*latest);
    if (step >= steps) {
      Report("done", step);
      return 0;
    }
  }
  Graph graph;
  DefaultGraphScope as_default(graph);
  SpiralsModel model = BuildSpiralsModel(kCampaignLearningRate);
  SpiralsBatches batches(SpiralsTrainingData(), kCampaignBatchSize, kCampaignBatchSeed);

  MonitoredTrainingSessionOptions options;
  options.checkpoint_dir = dir;
  options.save_checkpoint_secs = 0;  // Off: the hook below saves, with a listener.
  options.save_summaries_steps = 0;  // This campaign is about checkpoints only.
  options.log_step_count_steps = 0;
  options.stop_on_signals = false;
  CheckpointSaverHookOptions saving;
  saving.save_steps = absl::GetFlag(FLAGS_save_every);
  saving.listeners = {std::make_shared<ReportingListener>()};
  options.hooks = {StopAtStepHook::AtLastStep(steps),
                   std::make_shared<CheckpointSaverHook>(dir, saving)};

  std::unique_ptr<MonitoredSession> session = MonitoredTrainingSession(options);
  bool started = false;
  WithMonitoredSession(*session, [&](MonitoredSession& sess) {
    TrainSpirals(sess, model, batches, [&](int64_t step) {
      if (!started) Report("start", step);
      started = true;
    });
  });  // The clean close saves the final checkpoint (step `steps`).
  Report("done", steps);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  mts::ParseFlagsOnly(argc, argv);  // Flags only: any other argument is refused.
  try {
    return Train();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "crash_trainer failed: %s\n", e.what());
    return 1;
  }
}
