#include "src/04_coordinated/coordinated_thread.h"

#include <atomic>
#include <exception>
#include <map>
#include <utility>

#include "src/platform/errors.h"
#include "src/04_coordinated/exception_description.h"
#include "src/platform/logging.h"

namespace mts {

struct CoordinatedThread::State {
  State(std::string n, std::function<void()> b) : name(std::move(n)), body(std::move(b)) {}

  const std::string name;
  // Touched only by Start (before the thread exists) and then by the thread itself.
  std::function<void()> body;
  // Set by Start(), cleared by the thread under mu; read anywhere without a lock, so that
  // IsAlive() never waits for an exit observer.
  std::atomic<bool> alive{false};

  std::mutex mu;
  bool finished = false;                              // Guarded by mu.
  std::map<int, std::function<void()>> observers;     // Guarded by mu.
  int next_observer_id = 0;                           // Guarded by mu.
};

void CoordinatedThread::Run(const std::shared_ptr<State>& state) {
  try {
    state->body();
  } catch (...) {
    // An exception must not leave a std::thread (that would std::terminate the process).
    // Like Python's threading, log it and let the thread end. Bodies that should stop the
    // others run inside Coordinator::StopOnException, which reports before this point.
    const std::exception_ptr error = std::current_exception();
    MTS_LOG(ERROR) << "Exception in thread " << state->name << ": " << DescribeException(error);
  }
  // The captures die here, on this thread, before anyone can see the thread as finished:
  // whoever joins may rely on the body's resources being released.
  state->body = nullptr;

  std::lock_guard<std::mutex> lock(state->mu);
  state->alive.store(false);
  state->finished = true;
  // Called under mu so that RemoveExitObserver can promise no call is still running.
  for (auto& [id, on_exit] : state->observers) on_exit();
}

CoordinatedThread::CoordinatedThread(std::string name, std::function<void()> body)
    : state_(std::make_shared<State>(std::move(name), std::move(body))) {}

CoordinatedThread::~CoordinatedThread() {
  std::lock_guard<std::mutex> lock(join_mu_);
  if (!thread_.joinable()) return;
  bool finished = false;
  {
    std::lock_guard<std::mutex> state_lock(state_->mu);
    finished = state_->finished;
  }
  if (finished) {
    thread_.join();  // Quick: the body is done, only the bookkeeping's unlock remains.
    return;
  }
  // A straggler: waiting for it here could hang forever. It owns its State, so it can run
  // on safely after this object is gone.
  MTS_LOG(WARNING) << "Thread " << state_->name
                   << " is still running and its owner is gone; detaching it.";
  thread_.detach();
}

void CoordinatedThread::Start() {
  std::lock_guard<std::mutex> lock(join_mu_);
  if (started_) throw RuntimeError("threads can only be started once");
  // Alive before the OS thread exists, so a Join right after Start() waits for it.
  state_->alive.store(true);
  try {
    thread_ = std::thread(&CoordinatedThread::Run, state_);
  } catch (...) {
    state_->alive.store(false);
    throw;
  }
  started_ = true;
}

bool CoordinatedThread::IsAlive() const { return state_->alive.load(); }

void CoordinatedThread::Join() {
  std::lock_guard<std::mutex> lock(join_mu_);
  if (!thread_.joinable()) return;
  thread_.join();
}

const std::string& CoordinatedThread::name() const { return state_->name; }

int CoordinatedThread::AddExitObserver(std::function<void()> on_exit) {
  std::lock_guard<std::mutex> lock(state_->mu);
  const int id = state_->next_observer_id++;
  if (!state_->finished) state_->observers.emplace(id, std::move(on_exit));
  return id;
}

void CoordinatedThread::RemoveExitObserver(int id) {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->observers.erase(id);
}

}  // namespace mts
