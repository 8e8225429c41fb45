#include "src/05_recoverable/recoverable_session.h"

#include <algorithm>

#include "src/platform/errors.h"
#include "src/platform/logging.h"

namespace mts {

RecoverableSession::RecoverableSession(std::shared_ptr<SessionCreator> creator,
                                       RecoveryOptions options)
    : WrappedSession(CreateWithRetries(*creator, options)),
      creator_(std::move(creator)),
      options_(options) {}

// [mts:create-with-retries]
std::unique_ptr<SessionInterface> RecoverableSession::CreateWithRetries(
    SessionCreator& creator, const RecoveryOptions& options) {
  // [mts:lab 05_recoverable]
  Clock* clock = options.clock != nullptr ? options.clock : RealClock();
  // Capped from the first wait on: an initial backoff above the maximum must not make the
  // first wait the longest one.
  double backoff = std::min(options.initial_backoff_secs, options.max_backoff_secs);
  for (int attempt = 1;; ++attempt) {
    try {
      return creator.CreateSession();
    } catch (const OpError& e) {
      if (!IsPreemptionError(e.code())) throw;
      if (options.max_creation_attempts && attempt >= *options.max_creation_attempts) {
        MTS_LOG(ERROR) << "Giving up creating a session after " << attempt
                       << " attempts: " << e.what();
        // The same class, so callers catch it as before, with what to do added.
        ThrowOpError(e.code(),
                     e.message() + " (gave up after " + std::to_string(attempt) +
                         " attempts to create a session: check that the master and "
                         "parameter servers are up, or allow more attempts with "
                         "RecoveryOptions::max_creation_attempts)",
                     e.op_name());
      }
      MTS_LOG(INFO) << "Preemption error while creating a session (attempt " << attempt
                    << "), trying again: " << e.what();
    }
    if (backoff > 0) {
      clock->SleepForMicros(static_cast<int64_t>(backoff * 1e6));
      backoff = std::min(backoff * 2, options.max_backoff_secs);
    }
  }
  // [mts:lab-end]
}
// [mts:create-with-retries-end]

// [mts:recover]
void RecoverableSession::Recover(const std::exception& cause) {
  // [mts:lab 05_recoverable]
  MTS_LOG(INFO) << "A preemption error was raised; closing this session and creating a new "
                << "one (a parameter server or worker may have restarted). Error: "
                << cause.what();
  WrappedSession::Close();  // Swallows further preemption errors from the broken stack.
  ResetInner(CreateWithRetries(*creator_, options_));
  ++num_recoveries_;
  // [mts:lab-end]
}

std::vector<Tensor> RecoverableSession::Run(const std::vector<Output>& fetches,
                                            const FeedDict& feeds,
                                            const std::vector<Operation*>& targets,
                                            const RunOptions& options,
                                            RunMetadata* run_metadata) {
  // [mts:lab 05_recoverable]
  while (true) {
    if (closed_) {
      throw RuntimeError("Attempted to use a closed Session. Make a new session to run again.");
    }
    try {
      return WrappedSession::Run(fetches, feeds, targets, options, run_metadata);
    } catch (const OpError& e) {
      if (!IsPreemptionError(e.code())) throw;
      Recover(e);  // Then the whole call again, on the new stack.
    }
  }
  // [mts:lab-end]
}
// [mts:recover-end]

// [mts:recoverable-run-step-fn]
void RecoverableSession::RunStepFn(
    const std::function<void(SessionInterface& below)>& step_fn) {
  // [mts:lab 05_recoverable]
  while (true) {
    if (closed_) throw RuntimeError("Attempted to use a closed Session.");
    try {
      step_fn(*inner());  // inner() is the stack made by the latest creation.
      return;
    } catch (const OpError& e) {
      if (!IsPreemptionError(e.code())) throw;
      Recover(e);  // Then the whole step function again, on the new stack.
    }
  }
  // [mts:lab-end]
}
// [mts:recoverable-run-step-fn-end]

bool RecoverableSession::InnerShouldStop() {
  // [mts:lab 05_recoverable]
  auto* below = dynamic_cast<WrappedSession*>(inner());
  if (below == nullptr) return false;
  try {
    return below->ShouldStop();
  } catch (const OpError& e) {
    if (!IsPreemptionError(e.code())) return true;  // Close raises it again.
    Recover(e);
    return false;
  } catch (...) {
    return true;  // Not ours to recover; Close raises it again.
  }
  // [mts:lab-end]
}

void RecoverableSession::Close() {
  closed_ = true;
  WrappedSession::Close();
}

}  // namespace mts
