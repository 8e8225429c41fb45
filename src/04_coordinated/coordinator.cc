#include "src/04_coordinated/coordinator.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include "src/04_coordinated/exception_description.h"
#include "src/platform/logging.h"

namespace mts {
namespace {

int64_t SecondsToMicros(double secs) { return static_cast<int64_t>(std::llround(secs * 1e6)); }

bool AnyAlive(const std::vector<std::shared_ptr<CoordinatedThread>>& threads) {
  return std::any_of(threads.begin(), threads.end(),
                     [](const std::shared_ptr<CoordinatedThread>& t) { return t->IsAlive(); });
}

// Adds `on_exit` as an exit observer of every thread, and removes it from all of them when
// it goes out of scope (however the scope is left): after that, `on_exit` never runs again.
class ExitObservers {
 public:
  ExitObservers(const std::vector<std::shared_ptr<CoordinatedThread>>& threads,
                const std::function<void()>& on_exit) {
    for (const std::shared_ptr<CoordinatedThread>& thread : threads) {
      ids_.emplace_back(thread.get(), thread->AddExitObserver(on_exit));
    }
  }
  ~ExitObservers() {
    for (const auto& [thread, id] : ids_) thread->RemoveExitObserver(id);
  }
  ExitObservers(const ExitObservers&) = delete;
  ExitObservers& operator=(const ExitObservers&) = delete;

 private:
  std::vector<std::pair<CoordinatedThread*, int>> ids_;
};

}  // namespace

Coordinator::Coordinator(std::vector<ErrorCode> clean_stop_error_codes, Clock* clock)
    : clean_stop_error_codes_(std::move(clean_stop_error_codes)),
      clock_(clock != nullptr ? clock : RealClock()) {}

bool Coordinator::IsCleanStop(const std::exception_ptr& error) const {
  if (!error) return false;
  try {
    std::rethrow_exception(error);
  } catch (const OpError& e) {
    return std::find(clean_stop_error_codes_.begin(), clean_stop_error_codes_.end(),
                     e.code()) != clean_stop_error_codes_.end();
  } catch (...) {
    // Only OpErrors carry a code; every other exception is a real error.
    return false;
  }
}

// [mts:request-stop]
void Coordinator::RequestStop(std::exception_ptr error) {
  // [mts:lab 04_coordinated]
  // A clean stop ("the input is exhausted") stops the threads but is no error.
  if (IsCleanStop(error)) error = nullptr;
  std::unique_lock<std::mutex> lock(mu_);
  if (joined_ && error) {
    // Join() has already rethrown what it had; nobody would ever see this one. Raise it
    // here, in the caller, instead of losing it.
    lock.unlock();
    std::rethrow_exception(error);
  }
  if (stop_requested_) return;  // Only the first stop counts, with or without an error.
  if (error) {
    MTS_LOG(INFO) << "Error reported to Coordinator: " << DescribeException(error);
    error_ = error;
  }
  stop_requested_ = true;
  cv_.notify_all();
  // [mts:lab-end]
}
// [mts:request-stop-end]

void Coordinator::ClearStop() {
  std::lock_guard<std::mutex> lock(mu_);
  stop_requested_ = false;
  error_ = nullptr;
  joined_ = false;
}

bool Coordinator::ShouldStop() const {
  // [mts:lab 04_coordinated]
  std::lock_guard<std::mutex> lock(mu_);
  return stop_requested_;
  // [mts:lab-end]
}

bool Coordinator::WaitForStop(std::optional<double> timeout_secs) {
  // [mts:lab 04_coordinated]
  std::unique_lock<std::mutex> lock(mu_);
  if (!timeout_secs) {
    cv_.wait(lock, [this] { return stop_requested_; });
    return true;
  }
  // Through the clock, so that a FakeClock's time, not the wall's, ends the wait.
  return clock_->WaitFor(lock, cv_, SecondsToMicros(*timeout_secs),
                         [this] { return stop_requested_; });
  // [mts:lab-end]
}

void Coordinator::StopOnException(const std::function<void()>& body) {
  try {
    body();
  } catch (...) {
    // Swallowed on purpose: the error is handed to the coordinator, which stops the other
    // threads and rethrows it from Join() in the thread that owns them.
    RequestStop(std::current_exception());
  }
}

void Coordinator::RegisterThread(std::shared_ptr<CoordinatedThread> thread) {
  std::lock_guard<std::mutex> lock(mu_);
  if (std::find(registered_.begin(), registered_.end(), thread) == registered_.end()) {
    registered_.push_back(std::move(thread));
  }
}

// [mts:coordinator-join]
void Coordinator::Join(const std::vector<std::shared_ptr<CoordinatedThread>>& threads,
                       double stop_grace_period_secs, bool ignore_live_threads) {
  // [mts:lab 04_coordinated]
  // The threads to wait for: the registered ones and those passed in, each once. A thread
  // registered after this point is not waited for.
  std::vector<std::shared_ptr<CoordinatedThread>> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    all = registered_;
  }
  for (const std::shared_ptr<CoordinatedThread>& thread : threads) {
    if (std::find(all.begin(), all.end(), thread) == all.end()) all.push_back(thread);
  }

  {
    // Each thread wakes this Join when it ends, so no wait below needs to poll. The observer
    // takes mu_ before notifying: a thread that ends between a check and the wait cannot
    // slip its notification in unseen.
    ExitObservers observers(all, [this] {
      std::lock_guard<std::mutex> lock(mu_);
      cv_.notify_all();
    });
    // Declared after `observers`, so released before they are removed: removing one waits
    // for a running observer, which may be waiting for mu_.
    std::unique_lock<std::mutex> lock(mu_);
    // 1. Until a stop is requested or no thread is left.
    cv_.wait(lock, [&] { return stop_requested_ || !AnyAlive(all); });
    // 2. The grace period: a deadline on the clock, ended early by the last thread's exit.
    clock_->WaitFor(lock, cv_, SecondsToMicros(stop_grace_period_secs),
                    [&] { return !AnyAlive(all); });
  }

  // 3. Join the OS threads that ended; name the ones that did not.
  std::string stragglers;
  for (const std::shared_ptr<CoordinatedThread>& thread : all) {
    if (thread->IsAlive()) {
      stragglers += (stragglers.empty() ? "" : " ") + thread->name();
    } else {
      thread->Join();
    }
  }

  std::exception_ptr error;
  {
    std::lock_guard<std::mutex> lock(mu_);
    joined_ = true;
    registered_.clear();
    error = error_;  // Stays recorded: RaiseRequestedException still sees it.
  }
  if (error) std::rethrow_exception(error);
  if (stragglers.empty()) return;
  const std::string message = "Coordinator stopped with threads still running: " + stragglers;
  if (!ignore_live_threads) throw RuntimeError(message);
  MTS_LOG(INFO) << message;
  // [mts:lab-end]
}
// [mts:coordinator-join-end]

bool Coordinator::joined() const {
  std::lock_guard<std::mutex> lock(mu_);
  return joined_;
}

void Coordinator::RaiseRequestedException() const {
  std::exception_ptr error;
  {
    std::lock_guard<std::mutex> lock(mu_);
    error = error_;
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace mts
