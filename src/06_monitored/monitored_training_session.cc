#include "src/06_monitored/monitored_training_session.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "src/02_chief_worker/chief_session_creator.h"
#include "src/02_chief_worker/worker_session_creator.h"
#include "src/03_hooked/hooks/checkpoint_saver_hook.h"
#include "src/03_hooked/hooks/step_counter_hook.h"
#include "src/03_hooked/hooks/summary_saver_hook.h"
#include "src/06_monitored/signal_stop_hook.h"
#include "src/platform/directory_lock.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "src/platform/logging.h"
#include "src/platform/private_directory.h"

namespace mts {
namespace {

// A pair of frequencies after TensorFlow's USE_DEFAULT rule: both unset takes the defaults;
// one set turns the other off; both set stay set (and the hook raises). A value <= 0 is off.
template <typename Steps, typename Secs>
std::pair<std::optional<Steps>, std::optional<Secs>> ResolveFrequencies(
    std::optional<Steps> steps, std::optional<Secs> secs, std::optional<Steps> default_steps,
    std::optional<Secs> default_secs) {
  if (!steps && !secs) return {default_steps, default_secs};
  auto positive = [](auto value) -> decltype(value) {
    if (value && *value <= 0) return std::nullopt;
    return value;
  };
  return {positive(steps), positive(secs)};
}

// TensorFlow's words when both frequencies of a pair are set (the hook's ValueError), then
// which two arguments of MonitoredTrainingSession they were and what to do.
void CheckNotBoth(bool both, const char* first, const char* second) {
  if (both) {
    throw ValueError(std::string("Can not provide both every_secs and every_steps: ") + first +
                     " and " + second + " are both set. Set only one of " + first + " and " +
                     second + ", and leave the other unset.");
  }
}

// [mts:default-hooks]
// TensorFlow's hooks, in its order: chief-only hooks, the step counter, the summary saver,
// the checkpoint saver, then the user's hooks (a worker gets only the user's).
MonitoredSession::Hooks TensorFlowsDefaultHooks(const MonitoredTrainingSessionOptions& options,
                                                const std::shared_ptr<Scaffold>& scaffold) {
  MonitoredSession::Hooks hooks;
  if (!options.is_chief) {  // A worker: no default hooks of TensorFlow's.
    hooks.insert(hooks.end(), options.hooks.begin(), options.hooks.end());
    return hooks;
  }

  auto [summary_steps, summary_secs] = ResolveFrequencies<int64_t, double>(
      options.save_summaries_steps, options.save_summaries_secs, 100, std::nullopt);
  auto [checkpoint_steps, checkpoint_secs] = ResolveFrequencies<int64_t, double>(
      options.save_checkpoint_steps, options.save_checkpoint_secs, std::nullopt, 600.0);
  const std::string summary_dir =
      options.summary_dir.empty() ? options.checkpoint_dir : options.summary_dir;

  hooks.insert(hooks.end(), options.chief_only_hooks.begin(), options.chief_only_hooks.end());
  if (!summary_dir.empty() && options.log_step_count_steps > 0) {
    StepCounterHookOptions counting;
    counting.every_n_steps = options.log_step_count_steps;
    counting.output_dir = summary_dir;
    counting.clock = options.clock;
    hooks.push_back(std::make_shared<StepCounterHook>(counting));
  }
  if (!summary_dir.empty() && (summary_steps || summary_secs)) {
    CheckNotBoth(summary_steps && summary_secs, "save_summaries_steps", "save_summaries_secs");
    SummarySaverHookOptions summaries;
    summaries.save_steps = summary_steps;
    summaries.save_secs = summary_secs;
    summaries.output_dir = summary_dir;
    summaries.scaffold = scaffold;
    summaries.clock = options.clock;
    hooks.push_back(std::make_shared<SummarySaverHook>(summaries));
  }
  if (!options.checkpoint_dir.empty() && (checkpoint_steps || checkpoint_secs)) {
    CheckNotBoth(checkpoint_steps && checkpoint_secs, "save_checkpoint_secs",
                 "save_checkpoint_steps");
    CheckpointSaverHookOptions saving;
    saving.save_secs = checkpoint_secs;
    saving.save_steps = checkpoint_steps;
    saving.scaffold = scaffold;
    saving.listeners = options.checkpoint_saver_listeners;
    saving.clock = options.clock;
    hooks.push_back(std::make_shared<CheckpointSaverHook>(options.checkpoint_dir, saving));
  }
  hooks.insert(hooks.end(), options.hooks.begin(), options.hooks.end());
  return hooks;
}

// Beyond TensorFlow: the directory of every CheckpointSaverHook among `hooks`, made and
// locked (DirectoryLock) before any hook begins. The StepCounterHook and SummarySaverHook
// begin first and start the directory's event file; a second chief refused only by the
// CheckpointSaverHook's own lock left that file behind, in a directory another process
// trains in. The hook's Begin gets the same lock and holds it from then on.
std::vector<std::shared_ptr<DirectoryLock>> LockCheckpointDirectories(
    const MonitoredSession::Hooks& hooks) {
  std::vector<std::shared_ptr<DirectoryLock>> locks;
  for (const std::shared_ptr<SessionRunHook>& hook : hooks) {
    auto saver = std::dynamic_pointer_cast<CheckpointSaverHook>(hook);
    if (saver == nullptr) continue;
    DefaultFileSystem()->CreateDirectories(saver->checkpoint_dir());
    locks.push_back(DirectoryLock::Acquire(saver->checkpoint_dir(), "checkpoints"));
  }
  return locks;
}

// Beyond TensorFlow: two mistakes with a chief's CheckpointSaverHook of the user's, said
// when the hooks are made (DeepSpeech#695 and #1317; the book's pitfalls appendix). Without
// checkpoint_dir nothing restores what it saves; beside the default hook in the same
// directory, two Savers rotate one directory.
void WarnAboutCheckpointSaverHooksOfYours(const MonitoredTrainingSessionOptions& options,
                                          const MonitoredSession::Hooks& hooks) {
  MonitoredSession::Hooks yours = options.chief_only_hooks;
  yours.insert(yours.end(), options.hooks.begin(), options.hooks.end());
  auto savers = [](const MonitoredSession::Hooks& list) {
    return std::count_if(list.begin(), list.end(), [](const std::shared_ptr<SessionRunHook>& h) {
      return std::dynamic_pointer_cast<CheckpointSaverHook>(h) != nullptr;
    });
  };
  const bool default_saver = savers(hooks) > savers(yours);
  for (const std::shared_ptr<SessionRunHook>& hook : yours) {
    auto saver = std::dynamic_pointer_cast<CheckpointSaverHook>(hook);
    if (saver == nullptr) continue;
    const std::string& dir = saver->checkpoint_dir();
    if (options.checkpoint_dir.empty()) {
      MTS_LOG(WARNING) << "A CheckpointSaverHook of yours saves into " << dir
                       << ", but checkpoint_dir is empty, so nothing restores from there: only "
                       << "the session creator restores, from checkpoint_dir, and a restarted "
                       << "run starts again at step 0. Set checkpoint_dir to " << dir
                       << " (and save_checkpoint_secs to 0 to keep your hook the only saver).";
    } else if (dir == options.checkpoint_dir && default_saver) {
      MTS_LOG(WARNING) << "A CheckpointSaverHook of yours saves into checkpoint_dir " << dir
                       << ", and so does the default one MonitoredTrainingSession adds, with "
                       << "the Scaffold's Saver: two savers rotate one directory, and the "
                       << "default ignores your Saver's max_to_keep. Set save_checkpoint_secs "
                       << "to 0 (save_checkpoint_steps unset) to keep only yours.";
    }
  }
}

}  // namespace

MonitoredSession::Hooks MonitoredTrainingSessionHooks(
    const MonitoredTrainingSessionOptions& options, const std::shared_ptr<Scaffold>& scaffold) {
  MonitoredSession::Hooks hooks = TensorFlowsDefaultHooks(options, scaffold);
  if (options.is_chief) WarnAboutCheckpointSaverHooksOfYours(options, hooks);
  // Beyond TensorFlow, for chief and worker alike: SIGTERM/SIGINT stop after the step. First
  // in the list, so that its BeforeRun sees the signal before any other hook works on the
  // step, and its log line comes before the AfterRun of hooks that may take long (a
  // checkpoint save) or raise. The request itself cannot be lost by a later hook's failure:
  // the flag stays set and the hook asks again on every run.
  if (options.stop_on_signals) {
    const bool final_checkpoint =
        std::any_of(hooks.begin(), hooks.end(), [](const std::shared_ptr<SessionRunHook>& h) {
          return std::dynamic_pointer_cast<CheckpointSaverHook>(h) != nullptr;
        });
    hooks.insert(hooks.begin(), std::make_shared<SignalStopHook>(final_checkpoint));
  }
  return hooks;
}
// [mts:default-hooks-end]

// [mts:monitored-training-session]
std::unique_ptr<MonitoredSession> MonitoredTrainingSession(
    MonitoredTrainingSessionOptions options) {
  // Beyond TensorFlow: a chief restores from its directory, so one that another user could
  // have planted a checkpoint in is refused before anything is made or read.
  if (options.is_chief && !options.checkpoint_dir.empty()) {
    CheckPrivateDirectory(options.checkpoint_dir, "checkpoints");
  }
  // One scaffold for the creator and the hooks: the same Saver restores and saves.
  std::shared_ptr<Scaffold> scaffold =
      options.scaffold != nullptr ? options.scaffold : std::make_shared<Scaffold>();
  MonitoredSession::Hooks hooks = MonitoredTrainingSessionHooks(options, scaffold);
  const std::vector<std::shared_ptr<DirectoryLock>> locks = LockCheckpointDirectories(hooks);

  std::shared_ptr<SessionCreator> creator;
  if (options.is_chief) {
    ChiefSessionCreatorOptions chief;
    chief.master = options.master;
    chief.checkpoint_dir = options.checkpoint_dir;
    chief.clock = options.clock;
    chief.reinitialize_live_model = options.reinitialize_live_model;
    creator = std::make_shared<ChiefSessionCreator>(scaffold, chief);
  } else {
    creator = std::make_shared<WorkerSessionCreator>(
        scaffold, options.master, options.max_wait_secs, options.clock, options.recovery_wait_secs);
  }
  MonitoredSessionOptions session_options;
  session_options.stop_grace_period_secs = options.stop_grace_period_secs;
  session_options.recovery = options.recovery;
  session_options.clock = options.clock;
  return std::make_unique<MonitoredSession>(std::move(creator), std::move(hooks), session_options);
}
// [mts:monitored-training-session-end]

}  // namespace mts
