// fake_clock.h: a Clock whose time moves only when a test says so.
//
//   stages 01-07      take a Clock* wherever they wait or read the time
//   platform          Clock, RealClock()       (src/platform/clock.h)
//   tests/testing     FakeClock  <-- this file: the test double for the Clock seam
//
// A FakeClock starts at NowMicros() == 0 and stands still. It has two modes, chosen when it
// is made, for the two kinds of test that use it:
//
//   kBlocking (the default), for tests with threads. SleepForMicros and WaitFor really block
//     until another thread calls Advance() past their deadline (or, for WaitFor, until the
//     condition holds). The test drives time and never sleeps:
//
//       FakeClock clock;
//       std::thread worker([&] { clock.SleepForMicros(1000); done = true; });
//       clock.BlockUntilThreadsAsleep(1);   // the worker is now asleep
//       clock.Advance(1000);                // ... and now it wakes
//       worker.join();
//
//   kAutoAdvance, for single-threaded tests of code that polls (SessionManager waiting for a
//     model to be ready). A sleep returns at once, having advanced time by its duration; a
//     WaitFor whose condition is false jumps time to its deadline and returns. The test just
//     calls the code and afterwards reads how much fake time it took:
//
//       FakeClock clock(FakeClock::Mode::kAutoAdvance);
//       manager.WaitForSession(..., &clock);           // polls every 30 s, three times
//       EXPECT_EQ(clock.NowMicros(), 90 * 1000000);
//
// Wall time is NowMicros() plus a fixed start (2020-09-13 12:26:40 UTC by default), so file
// names and event timestamps in tests are the same on every run.
//
// Thread safety: every method may be called from any thread. Advance briefly locks the
// mutex of each waiter it wakes, so do not call it (nor, in kAutoAdvance mode, sleep or wait)
// while holding a mutex that another thread passes to WaitFor.
//
// TensorFlow: tensorflow/core/util/fake_clock_env.h (FakeClockEnv::AdvanceByMicroseconds,
// BlockUntilThreadsAsleep).
#ifndef MTS_TESTS_TESTING_FAKE_CLOCK_H_
#define MTS_TESTS_TESTING_FAKE_CLOCK_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <mutex>

#include "src/platform/clock.h"

namespace mts {

/// A Clock for tests: time stands still until Advance(), or advances by itself on every sleep.
class FakeClock : public Clock {
 public:
  /// How sleeps and waits behave; see the file comment.
  enum class Mode {
    kBlocking,     ///< Sleeps and waits block until another thread advances time.
    kAutoAdvance,  ///< Sleeps and waits return at once, advancing time to their deadline.
  };

  /// WallTimeMicros() when NowMicros() is 0: 1'600'000'000 s after the epoch.
  static constexpr int64_t kDefaultWallStartMicros = int64_t{1600000000} * 1000000;

  /// A clock at NowMicros() == `start_micros` whose wall time is `wall_start_micros` then.
  explicit FakeClock(Mode mode = Mode::kBlocking, int64_t start_micros = 0,
                     int64_t wall_start_micros = kDefaultWallStartMicros);
  /// \pre No thread is still asleep or waiting on this clock.
  ~FakeClock() override = default;

  FakeClock(const FakeClock&) = delete;
  FakeClock& operator=(const FakeClock&) = delete;

  /// The fake time: the start plus everything advanced so far.
  int64_t NowMicros() const override;
  /// The fake time shifted to the wall-clock start given at construction.
  int64_t WallTimeMicros() const override;

  /// kBlocking: blocks until another thread advances time by `micros` or more.
  /// kAutoAdvance: advances time by `micros` (waking others whose deadline passes), returns.
  void SleepForMicros(int64_t micros) override;

  /// kBlocking: waits until `done()` holds (another thread notified `cv`) or another thread
  /// advances time to the deadline. kAutoAdvance: if `done()` is false, advances time to the
  /// deadline. Either way returns `done()` with `lock` held. `lock` is released and re-taken
  /// while the wait registers with the clock, as it would be inside `cv.wait`.
  bool WaitFor(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
               int64_t timeout_micros, const std::function<bool()>& done) override;

  /// Moves time forward by `micros` and wakes every sleeper and waiter whose deadline is now
  /// reached. \pre `micros >= 0`, and the caller holds no mutex a waiter waits with.
  void Advance(int64_t micros);

  /// Blocks until at least `n` threads are inside SleepForMicros or WaitFor (kBlocking mode),
  /// so a test can advance time knowing the threads it means to wake are already waiting.
  void BlockUntilThreadsAsleep(int n);

  /// How many threads are inside SleepForMicros or WaitFor right now (kBlocking mode).
  int NumThreadsAsleep() const;

 private:
  // A thread inside WaitFor: Advance notifies `cv` under `mu` once `deadline` is reached.
  struct Waiter {
    int64_t deadline;
    std::mutex* mu;
    std::condition_variable* cv;
    int notifying = 0;  // Guarded by mu_. Advance calls still using `mu` and `cv`.
  };

  const Mode mode_;
  const int64_t wall_offset_micros_;
  // Written only under mu_, read anywhere: a waiter reads it under its own mutex, and the
  // clock never holds mu_ and a waiter's mutex together.
  std::atomic<int64_t> now_micros_;

  mutable std::mutex mu_;
  std::condition_variable sleepers_cv_;        // Sleepers wait here, under mu_.
  std::condition_variable asleep_changed_cv_;  // BlockUntilThreadsAsleep waits here.
  std::condition_variable notified_cv_;        // A leaving waiter waits here for Advance.
  std::list<Waiter*> waiters_;                 // Guarded by mu_.
  int num_asleep_ = 0;                         // Guarded by mu_. Sleepers plus waiters.
};

}  // namespace mts

#endif  // MTS_TESTS_TESTING_FAKE_CLOCK_H_
