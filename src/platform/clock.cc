#include "src/platform/clock.h"

#include <chrono>
#include <thread>

namespace mts {
namespace {

// The real clock is a thin wrapper over <chrono>; its only job is to be the one place that
// reads real time, so everything else can be handed a fake.
class RealClockImpl : public Clock {
 public:
  int64_t NowMicros() const override {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  int64_t WallTimeMicros() const override {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  void SleepForMicros(int64_t micros) override {
    if (micros > 0) std::this_thread::sleep_for(std::chrono::microseconds(micros));
  }

  bool WaitFor(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
               int64_t timeout_micros, const std::function<bool()>& done) override {
    if (timeout_micros <= 0) return done();
    // libstdc++ measures wait_for on steady_clock, so a wall-clock jump cannot end it early.
    return cv.wait_for(lock, std::chrono::microseconds(timeout_micros), done);
  }
};

}  // namespace

Clock* RealClock() {
  // Leaked on purpose: threads may still read the clock while static destructors run.
  static Clock* const clock = new RealClockImpl;
  return clock;
}

}  // namespace mts
