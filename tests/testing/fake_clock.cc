#include "tests/testing/fake_clock.h"

#include <algorithm>
#include <vector>

namespace mts {

FakeClock::FakeClock(Mode mode, int64_t start_micros, int64_t wall_start_micros)
    : mode_(mode),
      wall_offset_micros_(wall_start_micros - start_micros),
      now_micros_(start_micros) {}

int64_t FakeClock::NowMicros() const { return now_micros_.load(); }

int64_t FakeClock::WallTimeMicros() const { return wall_offset_micros_ + now_micros_.load(); }

void FakeClock::SleepForMicros(int64_t micros) {
  if (micros <= 0) return;
  if (mode_ == Mode::kAutoAdvance) {
    Advance(micros);
    return;
  }
  std::unique_lock<std::mutex> lock(mu_);
  const int64_t deadline = now_micros_.load() + micros;
  ++num_asleep_;
  asleep_changed_cv_.notify_all();
  sleepers_cv_.wait(lock, [&] { return now_micros_.load() >= deadline; });
  --num_asleep_;
}

bool FakeClock::WaitFor(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                        int64_t timeout_micros, const std::function<bool()>& done) {
  if (done() || timeout_micros <= 0) return done();
  if (mode_ == Mode::kAutoAdvance) {
    // Nobody else will make `done` true in a single-threaded test: jump to the deadline.
    // The caller's lock is released first because Advance locks waiters' mutexes.
    lock.unlock();
    Advance(timeout_micros);
    lock.lock();
    return done();
  }

  // The clock never holds mu_ and a waiter's mutex at once, in either direction, so no lock
  // order between them can deadlock: the waiter lets go of its own mutex to register under
  // mu_, and Advance (below) lets go of mu_ before it takes the waiter's mutex.
  Waiter waiter{now_micros_.load() + timeout_micros, lock.mutex(), &cv};
  lock.unlock();
  {
    std::lock_guard<std::mutex> clock_lock(mu_);
    waiters_.push_back(&waiter);
    ++num_asleep_;
    asleep_changed_cv_.notify_all();
  }
  lock.lock();
  // No lost wake-up: the time is read under `lock`, and Advance changes the time before it
  // takes `lock` to notify, so either this loop sees the new time or it is already waiting.
  while (!done() && now_micros_.load() < waiter.deadline) cv.wait(lock);
  lock.unlock();
  {
    std::unique_lock<std::mutex> clock_lock(mu_);
    waiters_.remove(&waiter);
    --num_asleep_;
    // `waiter` lives on this stack: an Advance still notifying it must finish first.
    notified_cv_.wait(clock_lock, [&] { return waiter.notifying == 0; });
  }
  lock.lock();
  return done();
}

void FakeClock::Advance(int64_t micros) {
  std::vector<Waiter*> due;
  {
    std::lock_guard<std::mutex> clock_lock(mu_);
    const int64_t now = now_micros_.load() + std::max<int64_t>(micros, 0);
    now_micros_.store(now);
    sleepers_cv_.notify_all();
    for (Waiter* waiter : waiters_) {
      if (waiter->deadline > now) continue;
      ++waiter->notifying;  // Its WaitFor will not return (and free it) until we are done.
      due.push_back(waiter);
    }
  }
  for (Waiter* waiter : due) {
    {
      // Taking the waiter's mutex orders this notify after its last look at the time.
      std::lock_guard<std::mutex> waiter_lock(*waiter->mu);
      waiter->cv->notify_all();
    }
    std::lock_guard<std::mutex> clock_lock(mu_);
    --waiter->notifying;
    notified_cv_.notify_all();
  }
}

void FakeClock::BlockUntilThreadsAsleep(int n) {
  std::unique_lock<std::mutex> lock(mu_);
  asleep_changed_cv_.wait(lock, [&] { return num_asleep_ >= n; });
}

int FakeClock::NumThreadsAsleep() const {
  std::lock_guard<std::mutex> lock(mu_);
  return num_asleep_;
}

}  // namespace mts
