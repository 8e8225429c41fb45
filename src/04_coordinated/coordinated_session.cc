#include "src/04_coordinated/coordinated_session.h"

#include "src/platform/errors.h"
#include "src/03_hooked/hooked_session.h"
#include "src/04_coordinated/queue_runner.h"
#include "src/platform/logging.h"

namespace mts {

namespace {

// The error a thread recorded in `coord`, if it is a preemption error; null otherwise.
std::exception_ptr RecordedPreemptionError(const Coordinator& coord) {
  try {
    coord.RaiseRequestedException();
  } catch (const OpError& e) {
    if (IsPreemptionError(e.code())) return std::current_exception();
  } catch (...) {
    // Another kind of error: not a root cause the layer above could recover from.
  }
  return nullptr;
}

}  // namespace

CoordinatedSession::CoordinatedSession(std::unique_ptr<SessionInterface> session,
                                       std::shared_ptr<Coordinator> coord,
                                       double stop_grace_period_secs)
    : WrappedSession(std::move(session)),
      coord_(std::move(coord)),
      stop_grace_period_secs_(stop_grace_period_secs) {}

CoordinatedSession::~CoordinatedSession() {
  try {
    Close();
  } catch (const std::exception& e) {
    MTS_LOG(ERROR) << "Error while closing a CoordinatedSession in its destructor: "
                   << e.what();
  }
}

bool CoordinatedSession::CheckStop() {
  coord_->RaiseRequestedException();
  return coord_->ShouldStop();
}

// [mts:coordinated-run]
std::vector<Tensor> CoordinatedSession::Run(const std::vector<Output>& fetches,
                                            const FeedDict& feeds,
                                            const std::vector<Operation*>& targets,
                                            const RunOptions& options,
                                            RunMetadata* run_metadata) {
  try {
    return WrappedSession::Run(fetches, feeds, targets, options, run_metadata);
  } catch (const OpError& e) {
    if (IsPreemptionError(e.code())) throw;
    if (std::exception_ptr root = RecordedPreemptionError(*coord_)) std::rethrow_exception(root);
    throw;
  } catch (...) {
    if (std::exception_ptr root = RecordedPreemptionError(*coord_)) std::rethrow_exception(root);
    throw;
  }
}
// [mts:coordinated-run-end]

// [mts:coordinated-close]
void CoordinatedSession::Close() {
  if (closed_) return;
  closed_ = true;
  coord_->RequestStop();
  std::exception_ptr thread_error;
  try {
    // Stragglers after the grace period are logged, not waited for: a thread blocked in a
    // kernel that ignores cancellation must not hang the process at exit.
    coord_->Join({}, stop_grace_period_secs_, /*ignore_live_threads=*/true);
  } catch (...) {
    thread_error = std::current_exception();
  }
  try {
    WrappedSession::Close();  // The hooked session, then the raw one.
  } catch (const std::exception& e) {
    // The sessions are being thrown away; a thread's error, if any, is the one to report.
    MTS_LOG(WARNING) << "Error while closing the session below the coordinated layer "
                     << "(ignored): " << e.what();
  }
  if (thread_error) std::rethrow_exception(thread_error);
}
// [mts:coordinated-close-end]

CoordinatedSessionCreator::CoordinatedSessionCreator(
    std::shared_ptr<SessionCreator> creator, std::vector<std::shared_ptr<SessionRunHook>> hooks,
    double stop_grace_period_secs, Clock* clock)
    : creator_(std::move(creator)),
      hooks_(std::move(hooks)),
      stop_grace_period_secs_(stop_grace_period_secs),
      clock_(clock != nullptr ? clock : RealClock()) {}

// [mts:coordinated-create]
std::unique_ptr<CoordinatedSession> CoordinatedSessionCreator::CreateCoordinatedSession() {
  std::unique_ptr<SessionInterface> raw = creator_->CreateSession();
  // In a monitored session no error counts as a clean stop: OutOfRange from an input
  // thread must reach the training loop, which decides that it means "done".
  auto coord = std::make_shared<Coordinator>(std::vector<ErrorCode>{}, clock_);
  try {
    Graph* graph = raw->graph();
    if (graph->CollectionSize(GraphKeys::kQueueRunners) > 0) {
      StartQueueRunners(*raw, coord.get(), graph);
    }
    for (const auto& hook : hooks_) hook->AfterCreateSession(*raw, coord.get());
  } catch (...) {
    // Unlike TensorFlow, leave nothing running behind a failed creation: stop and join the
    // threads already started, and close the session, before the error propagates.
    coord->RequestStop();
    try {
      coord->Join({}, stop_grace_period_secs_, /*ignore_live_threads=*/true);
    } catch (...) {
      // The creation error is the one to report.
    }
    try {
      raw->Close();
    } catch (...) {
      // Likewise.
    }
    throw;
  }
  raw_session_ = raw.get();
  coord_ = coord;
  auto hooked = std::make_unique<HookedSession>(std::move(raw), hooks_);
  return std::make_unique<CoordinatedSession>(std::move(hooked), std::move(coord),
                                              stop_grace_period_secs_);
}
// [mts:coordinated-create-end]

std::unique_ptr<SessionInterface> CoordinatedSessionCreator::CreateSession() {
  return CreateCoordinatedSession();
}

}  // namespace mts
