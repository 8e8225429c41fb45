#include "src/04_coordinated/queue_runner.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "src/01_session/graph_keys.h"
#include "src/04_coordinated/exception_description.h"
#include "src/04_coordinated/runs_own_queue_runners.h"
#include "src/platform/logging.h"

namespace mts {

struct QueueRunner::State {
  Queue queue;
  std::vector<Operation*> enqueue_ops;
  Operation* close_op = nullptr;
  Operation* cancel_op = nullptr;
  std::vector<ErrorCode> queue_closed_error_codes;

  std::mutex mu;
  // How many enqueue threads made for each session have not ended yet. An entry is erased
  // when it drops to zero, so a long run of sessions leaves nothing behind.
  std::unordered_map<SessionInterface*, int> runs_per_session;  // Guarded by mu.
  std::vector<std::exception_ptr> exceptions_raised;            // Guarded by mu.

  bool IsQueueClosed(ErrorCode code) const {
    return std::find(queue_closed_error_codes.begin(), queue_closed_error_codes.end(), code) !=
           queue_closed_error_codes.end();
  }

  // One of `session`'s enqueue threads has ended. \returns how many still run. \pre mu held.
  int FinishRunLocked(SessionInterface* session) {
    auto it = runs_per_session.find(session);
    const int left = --it->second;
    if (left == 0) runs_per_session.erase(it);
    return left;
  }
};

QueueRunner::QueueRunner(Queue queue, std::vector<Operation*> enqueue_ops, Operation* close_op,
                         Operation* cancel_op, std::vector<ErrorCode> queue_closed_error_codes)
    : state_(std::make_shared<State>()) {
  if (queue.queue_op() == nullptr || enqueue_ops.empty() ||
      std::find(enqueue_ops.begin(), enqueue_ops.end(), nullptr) != enqueue_ops.end()) {
    throw ValueError("Must provide queue and enqueue_ops.");
  }
  if (queue_closed_error_codes.empty() ||
      std::find(queue_closed_error_codes.begin(), queue_closed_error_codes.end(), ErrorCode::kOk) !=
          queue_closed_error_codes.end()) {
    throw TypeError(
        "queue_closed_error_codes, when given, must be a non-empty list of "
        "error codes (OK is not an error)");
  }
  state_->queue = queue;
  state_->enqueue_ops = std::move(enqueue_ops);
  state_->close_op = close_op != nullptr ? close_op : queue.Close();
  state_->cancel_op = cancel_op != nullptr ? cancel_op : queue.Close(true);
  state_->queue_closed_error_codes = std::move(queue_closed_error_codes);
}

QueueRunner::~QueueRunner() = default;

const Queue& QueueRunner::queue() const { return state_->queue; }
const std::string& QueueRunner::name() const { return state_->queue.name(); }
const std::vector<Operation*>& QueueRunner::enqueue_ops() const { return state_->enqueue_ops; }
Operation* QueueRunner::close_op() const { return state_->close_op; }
Operation* QueueRunner::cancel_op() const { return state_->cancel_op; }
const std::vector<ErrorCode>& QueueRunner::queue_closed_error_codes() const {
  return state_->queue_closed_error_codes;
}

std::vector<std::exception_ptr> QueueRunner::exceptions_raised() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->exceptions_raised;
}

// [mts:enqueue-thread]
// Runs `enqueue_op` until the coordinator stops, the input runs out or something fails.
// Every way out counts the thread as ended exactly once.
void QueueRunner::RunEnqueueLoop(const std::shared_ptr<State>& state, SessionInterface* session,
                                 Operation* enqueue_op, Coordinator* coord) {
  // [mts:lab 04_coordinated]
  std::exception_ptr error;
  try {
    while (coord == nullptr || !coord->ShouldStop()) {
      try {
        session->Run(enqueue_op);
      } catch (const OpError& e) {
        if (!state->IsQueueClosed(e.code())) throw;
        EndOfInput(*state, session);  // Counts this thread out.
        return;
      }
    }
  } catch (...) {
    error = std::current_exception();
  }
  if (error == nullptr) {  // Stopped by the coordinator.
    std::lock_guard<std::mutex> lock(state->mu);
    state->FinishRunLocked(session);
    return;
  }
  ReportError(*state, session, coord, error);  // Counts this thread out.
  // [mts:lab-end]
}

// The input ran out. The last thread to see that closes our queue, so the consumer drains
// it and then meets OutOfRangeError itself. The close runs under the lock, as in
// TensorFlow: no new threads for this session start before it is done.
void QueueRunner::EndOfInput(State& state, SessionInterface* session) {
  // [mts:lab 04_coordinated]
  std::lock_guard<std::mutex> lock(state.mu);
  if (state.FinishRunLocked(session) == 0) {
    try {
      session->Run(state.close_op);
    } catch (...) {
      // Ignored on purpose: the queue may already be closed (by the cancel op at a
      // stop, or by the consumer), which is all this close wanted.
    }
  }
  // [mts:lab-end]
}

// A failure: to the coordinator, which stops every thread and keeps it; without one, to
// the log and exceptions_raised(), and out of the thread.
void QueueRunner::ReportError(State& state, SessionInterface* session, Coordinator* coord,
                              std::exception_ptr error) {
  // [mts:lab 04_coordinated]
  auto count_out = [&] {
    std::lock_guard<std::mutex> lock(state.mu);
    state.FinishRunLocked(session);
  };
  if (coord != nullptr) {
    try {
      coord->RequestStop(error);
    } catch (...) {
      count_out();  // RequestStop rethrows after Join; still count this thread out.
      throw;
    }
    count_out();
    return;
  }
  MTS_LOG(ERROR) << "Exception in QueueRunner: " << ExceptionMessage(error);
  {
    std::lock_guard<std::mutex> lock(state.mu);
    state.exceptions_raised.push_back(error);
  }
  count_out();
  // As a Python thread re-raises it: CoordinatedThread logs it and the thread ends.
  std::rethrow_exception(error);
  // [mts:lab-end]
}
// [mts:enqueue-thread-end]

void QueueRunner::CloseOnStop(const std::shared_ptr<State>& state, SessionInterface* session,
                              Coordinator* coord) {
  // [mts:lab 04_coordinated]
  coord->WaitForStop();
  try {
    session->Run(state->cancel_op);
  } catch (...) {
    // Ignored on purpose: a stop often comes with the session already closing, and the
    // only aim here is that no enqueue stays blocked.
  }
  // [mts:lab-end]
}

std::vector<std::shared_ptr<CoordinatedThread>> QueueRunner::CreateThreads(
    SessionInterface& session, Coordinator* coord, bool start) {
  // [mts:lab 04_coordinated]
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (state_->runs_per_session.count(&session) > 0) return {};  // Still running there.
    state_->runs_per_session[&session] = static_cast<int>(state_->enqueue_ops.size());
    state_->exceptions_raised.clear();
  }
  std::vector<std::shared_ptr<CoordinatedThread>> threads;
  SessionInterface* raw = &session;
  for (Operation* op : state_->enqueue_ops) {
    threads.push_back(std::make_shared<CoordinatedThread>(
        "QueueRunnerThread-" + name() + "-" + op->name(),
        [state = state_, raw, op, coord] { RunEnqueueLoop(state, raw, op, coord); }));
  }
  if (coord != nullptr) {
    threads.push_back(std::make_shared<CoordinatedThread>(
        "QueueRunnerThread-" + name() + "-close_on_stop",
        [state = state_, raw, coord] { CloseOnStop(state, raw, coord); }));
  }
  for (const auto& thread : threads) {
    if (coord != nullptr) coord->RegisterThread(thread);
    if (start) thread->Start();
  }
  return threads;
  // [mts:lab-end]
}

void AddQueueRunner(std::shared_ptr<QueueRunner> runner, Graph* graph) {
  Graph& g = graph != nullptr ? *graph : GetDefaultGraph();
  g.AddToCollection(GraphKeys::kQueueRunners, std::move(runner));
}

std::vector<std::shared_ptr<CoordinatedThread>> StartQueueRunners(SessionInterface& session,
                                                                  Coordinator* coord,
                                                                  Graph* graph) {
  // The session already runs them: a second set of threads would drive it from outside.
  if (dynamic_cast<RunsOwnQueueRunners*>(&session) != nullptr) return {};
  Graph& g = graph != nullptr ? *graph : *session.graph();
  const auto runners = g.GetCollection<std::shared_ptr<QueueRunner>>(GraphKeys::kQueueRunners);
  if (runners.empty()) {
    MTS_LOG(WARNING) << "StartQueueRunners found no queue runners in the graph's "
                     << GraphKeys::kQueueRunners << " collection: no thread was started.";
  }
  std::vector<std::shared_ptr<CoordinatedThread>> threads;
  for (const auto& runner : runners) {
    for (auto& thread : runner->CreateThreads(session, coord, /*start=*/true)) {
      threads.push_back(std::move(thread));
    }
  }
  return threads;
}

}  // namespace mts
