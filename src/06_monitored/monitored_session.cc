#include "src/06_monitored/monitored_session.h"

#include <exception>

#include "src/platform/errors.h"
#include "src/02_chief_worker/chief_session_creator.h"
#include "src/04_coordinated/exception_description.h"
#include "src/platform/logging.h"

namespace mts {

MonitoredSession::MonitoredSession(std::shared_ptr<SessionCreator> session_creator, Hooks hooks,
                                   MonitoredSessionOptions options)
    : MonitoredSession(std::move(session_creator), std::move(hooks), options,
                       /*should_recover=*/true) {}

// [mts:monitored-construct]
MonitoredSession::MonitoredSession(std::shared_ptr<SessionCreator> session_creator, Hooks hooks,
                                   const MonitoredSessionOptions& options, bool should_recover)
    : graph_(&GetDefaultGraph()),
      graph_was_finalized_(graph_->finalized()),
      hooks_(std::move(hooks)) {
  // [mts:lab 06_monitored]
  // 1. Begin: once, before any session exists, while hooks may still add ops.
  for (const auto& hook : hooks_) hook->Begin();
  if (session_creator == nullptr) session_creator = std::make_shared<ChiefSessionCreator>();
  // 2. The creator of everything from the coordinated layer down: raw session (the
  //    scaffold finalizes the graph; restore or initialise), queue runners, then every
  //    hook's AfterCreateSession; wrapped as Coordinated(Hooked(raw)).
  coordinated_creator_ = std::make_shared<CoordinatedSessionCreator>(
      std::move(session_creator), hooks_, options.stop_grace_period_secs, options.clock);
  // 3. Recovery on top, which owns the creator; or one creation, without.
  if (should_recover) {
    RecoveryOptions recovery = options.recovery;
    if (recovery.clock == nullptr) recovery.clock = options.clock;
    auto recoverable = std::make_unique<RecoverableSession>(coordinated_creator_, recovery);
    recoverable_ = recoverable.get();
    sess_ = std::move(recoverable);
  } else {
    sess_ = coordinated_creator_->CreateCoordinatedSession();
  }
  // [mts:lab-end]
}
// [mts:monitored-construct-end]

MonitoredSession::~MonitoredSession() {
  if (sess_ == nullptr) return;
  try {
    CloseAfterError();
  } catch (...) {
    MTS_LOG(ERROR) << "Error while closing a MonitoredSession that was destroyed open ("
                   << ExceptionTypeName(std::current_exception())
                   << "): " << ExceptionMessage(std::current_exception());
  }
}

void MonitoredSession::ThrowIfClosed() const {
  if (sess_ == nullptr) {
    throw RuntimeError(
        "Run called on a closed MonitoredSession; create a new session to run again.");
  }
}

std::vector<Tensor> MonitoredSession::Run(const std::vector<Output>& fetches, const FeedDict& feeds,
                                          const std::vector<Operation*>& targets,
                                          const RunOptions& options, RunMetadata* run_metadata) {
  ThrowIfClosed();
  return sess_->Run(fetches, feeds, targets, options, run_metadata);
}

// [mts:monitored-run-step-fn]
void MonitoredSession::RunStepFnOnce(const std::function<void(StepContext&)>& step_fn) {
  ThrowIfClosed();
  if (recoverable_ != nullptr) {
    // `below` and the raw session are looked up on every call: after a recovery both are
    // the new stack's, never the closed one's.
    recoverable_->RunStepFn([&](SessionInterface& below) {
      StepContext context(*coordinated_creator_->raw_session(), below);
      step_fn(context);
    });
  } else {
    StepContext context(*coordinated_creator_->raw_session(), *sess_);
    step_fn(context);
  }
}
// [mts:monitored-run-step-fn-end]

bool MonitoredSession::ShouldStop() { return sess_ == nullptr || sess_->ShouldStop(); }

Graph* MonitoredSession::graph() const { return sess_ == nullptr ? nullptr : sess_->graph(); }

SessionInterface* MonitoredSession::current_raw_session() const {
  return sess_ == nullptr ? nullptr : coordinated_creator_->raw_session();
}

void MonitoredSession::Close() { CloseInternal(/*run_end_hooks=*/true); }

void MonitoredSession::CloseAfterError() { CloseInternal(/*run_end_hooks=*/false); }

// [mts:monitored-close]
void MonitoredSession::CloseInternal(bool run_end_hooks) {
  // [mts:lab 06_monitored]
  if (sess_ == nullptr) {
    throw RuntimeError(
        "Session is already closed. Close it once: WithMonitoredSession closes the session "
        "itself, so its body must not.");
  }
  std::exception_ptr end_error;
  if (run_end_hooks) end_error = RunEndHooks();
  // Closed from here on, whatever the stack's Close raises.
  std::unique_ptr<WrappedSession> sess = std::move(sess_);
  recoverable_ = nullptr;
  auto restore_graph = [this] {
    if (!graph_was_finalized_) graph_->UnsafeUnfinalize();
  };
  try {
    sess->Close();  // Joins the threads; raises a thread's error after closing everything.
  } catch (...) {
    restore_graph();
    throw;  // Replaces an error of End, as Python's nested finally does.
  }
  restore_graph();
  if (end_error) std::rethrow_exception(end_error);
  // [mts:lab-end]
}
// [mts:monitored-close-end]

// [mts:monitored-end-hooks]
std::exception_ptr MonitoredSession::RunEndHooks() {
  // [mts:lab 06_monitored]
  // Every hook's End runs, even after one has raised: a SummarySaverHook whose disk filled
  // must not cost the CheckpointSaverHook after it the final checkpoint. (TensorFlow stops
  // at the first End that raises.) Each failure is logged as it happens; the first is
  // raised once all have run.
  std::exception_ptr first_error;
  for (size_t i = 0; i < hooks_.size(); ++i) {
    try {
      hooks_[i]->End(*coordinated_creator_->raw_session());
    } catch (...) {
      MTS_LOG(ERROR) << "The End of hook " << i + 1 << " of " << hooks_.size() << " raised "
                     << ExceptionTypeName(std::current_exception()) << ": "
                     << ExceptionMessage(std::current_exception())
                     << (first_error ? "" : " (raised again once every hook's End has run)");
      if (!first_error) first_error = std::current_exception();
    }
  }
  return first_error;
  // [mts:lab-end]
}
// [mts:monitored-end-hooks-end]

namespace {
// The chief's part of a SingularMonitoredSession's options.
ChiefSessionCreatorOptions ChiefOptionsOf(const SingularMonitoredSessionOptions& options) {
  ChiefSessionCreatorOptions chief;
  chief.master = options.master;
  chief.checkpoint_dir = options.checkpoint_dir;
  chief.checkpoint_filename_with_path = options.checkpoint_filename_with_path;
  chief.clock = options.clock;
  return chief;
}
}  // namespace

SingularMonitoredSession::SingularMonitoredSession(SingularMonitoredSessionOptions options)
    : MonitoredSession(
          std::make_shared<ChiefSessionCreator>(std::move(options.scaffold),
                                                ChiefOptionsOf(options)),
          std::move(options.hooks),
          MonitoredSessionOptions{options.stop_grace_period_secs, RecoveryOptions{}, options.clock},
          /*should_recover=*/false) {}

}  // namespace mts
