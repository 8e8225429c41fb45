// clock.h: where mts gets the time: the seam that lets tests run time instead of waiting for it.
//
//   RecoverableSession ... Session     stages 01-07
//   ------------------------------------------------------------------------
//   platform            <-- below every stage: the platform seams
//                           (this file: Clock; beside it FileSystem, logging, crc32c)
//
// Every stage that waits asks a Clock: the SessionManager polling for a ready model, the
// Coordinator giving threads a grace period, the hooks that save "every N seconds". Nothing
// calls std::this_thread::sleep_for or std::chrono::steady_clock directly, so a test can hand
// in a FakeClock (tests/testing/fake_clock.h) and move time forward itself: no test waits on
// real time.
//
// Two kinds of time, never mixed:
//   - NowMicros() is monotonic (steady_clock): use it for intervals and deadlines.
//   - WallTimeMicros() is calendar time (system_clock): use it for timestamps in file names
//     and event records, never for measuring how long something took.
//
// Waiting "until a condition holds or a timeout passes" goes through WaitFor, not through
// std::condition_variable::wait_for, so that a fake clock can end the wait when *its* time
// passes the deadline.
//
// Thread safety: every Clock is safe to use from any number of threads.
//
// Example:
//   Clock* clock = RealClock();                    // or a FakeClock* in a test
//   const int64_t start = clock->NowMicros();
//   std::unique_lock<std::mutex> lock(mu_);
//   bool ready = clock->WaitFor(lock, cv_, 30 * 1000000, [&] { return ready_; });
//
// TensorFlow: tensorflow/core/platform/env.h (Env::NowMicros, Env::SleepForMicroseconds) and
// tensorflow/core/util/fake_clock_env.h; Python's time.time() and time.sleep().
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
