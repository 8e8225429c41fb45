// clock.h: where mts gets the time: the seam that lets tests run time instead of waiting for it.
//
// Platform, below every stage: whatever waits or times asks a Clock, so a test can hand in
// a FakeClock (tests/testing/fake_clock.h). NowMicros() is monotonic, for intervals and
// deadlines; WallTimeMicros() is calendar time, for timestamps only. Waits "until a
// condition holds or a timeout passes" go through WaitFor, so that a fake clock ends them
// when *its* time passes the deadline. Every Clock is safe to use from any thread.
//
// Example: bool ready = clock->WaitFor(lock, cv_, 30 * 1000000, [&] { return ready_; });
//
// TensorFlow: Env::NowMicros, Env::SleepForMicroseconds (tensorflow/core/platform/env.h) and
// tensorflow/core/util/fake_clock_env.h.
#ifndef MTS_SRC_PLATFORM_CLOCK_H_
#define MTS_SRC_PLATFORM_CLOCK_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

namespace mts {

/// A source of time and a way to wait for it; RealClock() in production, FakeClock in tests.
class Clock {
 public:
  virtual ~Clock() = default;

  /// Monotonic time in microseconds since an arbitrary origin: for intervals and deadlines.
  virtual int64_t NowMicros() const = 0;

  /// Calendar time in microseconds since the Unix epoch: for timestamps and file names only.
  virtual int64_t WallTimeMicros() const = 0;

  /// NowMicros() in seconds, for code that reads like TensorFlow's `time.time()` arithmetic.
  double NowSeconds() const { return static_cast<double>(NowMicros()) / 1e6; }

  /// Blocks the calling thread for `micros` of this clock's time; returns at once when
  /// `micros <= 0`.
  virtual void SleepForMicros(int64_t micros) = 0;

  /// Waits on `cv` until `done()` holds or `timeout_micros` of this clock's time have passed,
  /// like `cv.wait_for(lock, timeout, done)`. `done` is only called with `lock` held.
  /// \pre `lock` owns its mutex, and every thread that changes what `done` reads does so
  ///      under that mutex and then notifies `cv`.
  /// \returns `done()`, evaluated with `lock` held after the wait; `lock` is held on return.
  /// A `timeout_micros <= 0` checks `done()` without waiting.
  virtual bool WaitFor(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                       int64_t timeout_micros, const std::function<bool()>& done) = 0;
};

/// The process's real clock: steady_clock for NowMicros, system_clock for WallTimeMicros.
/// Never null, never destroyed.
Clock* RealClock();

}  // namespace mts

#endif  // MTS_SRC_PLATFORM_CLOCK_H_
