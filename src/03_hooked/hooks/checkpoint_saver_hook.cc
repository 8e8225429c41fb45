#include "src/03_hooked/hooks/checkpoint_saver_hook.h"

#include <utility>

#include "src/01_session/graph_def.h"
#include "src/01_session/graph_keys.h"
#include "src/01_session/training_util.h"
#include "src/02_chief_worker/scaffold.h"
#include "src/03_hooked/events/event.pb.h"
#include "src/03_hooked/events/summary_writer_cache.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "src/platform/logging.h"

namespace mts {
namespace {

// How many steps one run advances the step by. TensorFlow keeps this as a field for
// distribution strategies that run several steps per call; a HookedSession run is one.
constexpr int64_t kStepsPerRun = 1;

}  // namespace

CheckpointSaverHook::CheckpointSaverHook(std::string checkpoint_dir,
                                         CheckpointSaverHookOptions options)
    : checkpoint_dir_(std::move(checkpoint_dir)),
      save_path_(JoinPath(checkpoint_dir_, options.checkpoint_basename)),
      saver_(std::move(options.saver)),
      scaffold_(std::move(options.scaffold)),
      listeners_(std::move(options.listeners)),
      save_graph_def_(options.save_graph_def),
      // The saver/scaffold check comes first in TensorFlow, so a call wrong in both ways
      // names that; a default-constructed timer would not be valid, hence the lambda.
      timer_([&] {
        if (saver_ != nullptr && scaffold_ != nullptr) {
          throw ValueError("You cannot provide both saver and scaffold.");
        }
        return SecondOrStepTimer(options.save_secs, options.save_steps, options.clock);
      }()) {}

void CheckpointSaverHook::Begin() {
  // Beyond TensorFlow: one writer of checkpoints per directory. A second chief is refused
  // here, before any session exists or any file is written (its event file included).
  DefaultFileSystem()->CreateDirectories(checkpoint_dir_);
  directory_lock_ = DirectoryLock::Acquire(checkpoint_dir_, "checkpoints");
  summary_writer_ = SummaryWriterCache::Get(checkpoint_dir_);
  std::optional<Output> read = GetOrCreateGlobalStepRead();
  if (!read) throw RuntimeError("Global step should be created to use CheckpointSaverHook.");
  global_step_read_ = *read;
  for (const auto& listener : listeners_) listener->Begin();
}

// [mts:checkpoint-saver-graph]
void CheckpointSaverHook::AfterCreateSession(SessionInterface& session, Coordinator* coord) {
  const int64_t step = GlobalStepValue(session, global_step_read_);
  if (save_graph_def_) {
    // Not in Begin: other hooks' Begin may still add ops; now the graph is the one run.
    const Graph& graph = *session.graph();
    DefaultFileSystem()->WriteFileAtomically(JoinPath(checkpoint_dir_, kGraphTextFilename),
                                             GraphDefToText(AsGraphDef(graph)));
    summary_writer_->AddGraph(graph);
  }
  // A fresh session (and, after a recovery, a restored one) is saved at once, so the newest
  // checkpoint always describes a session that existed. There is no run to stop yet, so a
  // listener's stop request is not acted on.
  Save(session, step);
  timer_.UpdateLastTriggeredStep(step);
  step_at_creation_ = step;
  runs_since_creation_ = 0;
}
// [mts:checkpoint-saver-graph-end]

SessionRunArgs CheckpointSaverHook::BeforeRun(SessionRunContext& run_context) {
  SessionRunArgs args;
  args.fetches = {global_step_read_};
  return args;
}

// [mts:checkpoint-saver-trigger]
void CheckpointSaverHook::AfterRun(SessionRunContext& run_context,
                                   const SessionRunValues& run_values) {
  const int64_t stale_step = run_values.results[0].scalar<int64_t>();
  ++runs_since_creation_;
  // 1. A cheap guess from the fetched step: if even the step after this run would not be
  //    due, nothing to do, and no extra run is paid.
  if (!timer_.ShouldTriggerForStep(stale_step + kStepsPerRun)) return;
  // 2. Due, perhaps: read the real step (this run may not have trained) and ask again.
  const int64_t step = GlobalStepValue(run_context.session(), global_step_read_);
  if (!timer_.ShouldTriggerForStep(step)) {
    if (step == timer_.last_triggered_step()) WarnStepNotMoving(step);  // Due, but no new step.
    return;
  }
  timer_.UpdateLastTriggeredStep(step);
  if (Save(run_context.session(), step)) run_context.RequestStop();
}
// [mts:checkpoint-saver-trigger-end]

void CheckpointSaverHook::End(SessionInterface& session) {
  const int64_t last_step = GlobalStepValue(session, global_step_read_);
  if (runs_since_creation_ > 0 && last_step == step_at_creation_) WarnStepNotMoving(last_step);
  if (timer_.last_triggered_step() != last_step) Save(session, last_step);
  for (const auto& listener : listeners_) listener->End(session, last_step);
  // The final save's CHECKPOINT event is queued after every other hook's last flush: flush
  // it now, or a program that ends here loses it from its event file.
  summary_writer_->Flush();
  directory_lock_.reset();  // Done writing: another chief may have the directory now.
}

// [mts:checkpoint-saver-save]
bool CheckpointSaverHook::Save(SessionInterface& session, int64_t step) {
  MTS_LOG(INFO) << "Saving checkpoints for " << step << " into " << save_path_ << ".";
  for (const auto& listener : listeners_) listener->BeforeSave(session, step);
  GetSaver(session)->Save(session, save_path_, step);

  // TensorBoard marks checkpoints on its timeline from this event; the step is the event's.
  tensorflow::SessionLog checkpoint;
  checkpoint.set_status(tensorflow::SessionLog::CHECKPOINT);
  checkpoint.set_checkpoint_path(save_path_);
  summary_writer_->AddSessionLog(checkpoint, step);

  // Every listener hears about the save, even after an earlier one asked to stop.
  bool should_stop = false;
  for (const auto& listener : listeners_) {
    if (listener->AfterSave(session, step)) {
      MTS_LOG(INFO) << "A CheckpointSaverListener asked to stop training after the "
                    << "checkpoint for step " << step << ".";
      should_stop = true;
    }
  }
  return should_stop;
}
// [mts:checkpoint-saver-save-end]

void CheckpointSaverHook::WarnStepNotMoving(int64_t step) {
  if (warned_step_not_moving_) return;
  warned_step_not_moving_ = true;
  MTS_LOG(WARNING) << "CheckpointSaverHook: after " << runs_since_creation_
                   << (runs_since_creation_ == 1 ? " run" : " runs") << " the global step is still "
                   << step
                   << ", the step of the last checkpoint, so nothing trained since is saved (a "
                   << "checkpoint is saved only at a new step). Does the train op increment "
                   << "the global step? Pass it to the optimizer: Minimize(loss, global_step).";
}

std::shared_ptr<Saver> CheckpointSaverHook::GetSaver(SessionInterface& session) {
  if (saver_ != nullptr) {
    // TensorFlow runs a Saver's ops by name in the session's graph: one of another graph
    // saves whatever this graph has of those names, if anything. mts refuses it.
    if (!saver_->empty() && saver_->variables().front().op()->graph() != session.graph()) {
      throw ValueError("The Saver given to CheckpointSaverHook saves variables of another graph (" +
                       saver_->variables().front().name() +
                       "), not of the graph the session runs: build the Saver in the graph of "
                       "the model it saves, after its variables.");
    }
    return saver_;
  }
  // The scaffold's saver is read at each save: it is set when the scaffold is finalized,
  // which happens after this hook is made.
  if (scaffold_ != nullptr) {
    if (scaffold_->saver() == nullptr) {
      throw RuntimeError("The Scaffold given to CheckpointSaverHook has no Saver: finalize it "
                         "before the first session is created.");
    }
    return scaffold_->saver();
  }
  std::vector<std::shared_ptr<Saver>> savers =
      session.graph()->GetCollection<std::shared_ptr<Saver>>(GraphKeys::kSavers);
  if (savers.empty()) {
    throw RuntimeError(
        "No items in collection savers. Please add a saver to the collection or provide a "
        "saver or scaffold.");
  }
  if (savers.size() > 1) {
    throw RuntimeError(
        "More than one item in collection savers. Please indicate which one to use by "
        "passing it to the constructor.");
  }
  saver_ = savers.front();
  return saver_;
}

}  // namespace mts
