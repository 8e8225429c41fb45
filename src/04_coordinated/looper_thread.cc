#include "src/04_coordinated/looper_thread.h"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <utility>

#include "src/platform/clock.h"
#include "src/platform/errors.h"

namespace mts {
namespace {

// The loop itself. It captures only what it is given (the coordinator, the interval, the
// target), never the LooperThread, so it may outlive the object (see CoordinatedThread).
void RunLoop(Coordinator* coord, std::optional<int64_t> interval_micros,
             const std::function<void()>& target) {
  coord->StopOnException([&] {
    if (!interval_micros) {
      while (!coord->ShouldStop()) target();
      return;
    }
    Clock* clock = coord->clock();
    // The first boundary is now: the first call is immediate.
    int64_t next = clock->NowMicros();
    // Waiting with WaitForStop, not a sleep: a stop ends the wait at once.
    while (!coord->WaitForStop(static_cast<double>(next - clock->NowMicros()) / 1e6)) {
      next += *interval_micros;  // Fixed boundaries: counted from the start, not the call.
      target();
      // If the call overran by whole intervals, skip the boundaries it missed: the next call
      // is one late call (immediately), not a burst of catch-up calls (TensorFlow's).
      // A zero interval has no boundaries to skip: every call is due at once.
      const int64_t late = clock->NowMicros() - next;
      if (*interval_micros > 0 && late >= *interval_micros) {
        next += (late / *interval_micros) * *interval_micros;
      }
    }
  });
}

std::atomic<int> g_looper_count{0};

}  // namespace

LooperThread::LooperThread(std::string name, std::function<void()> body,
                           std::optional<double> timer_interval_secs)
    : CoordinatedThread(std::move(name), std::move(body)),
      timer_interval_secs_(timer_interval_secs) {}

std::shared_ptr<LooperThread> LooperThread::Create(Coordinator* coord,
                                                   std::optional<double> timer_interval_secs,
                                                   std::function<void()> target, std::string name) {
  if (coord == nullptr) throw ValueError("'coord' argument must be a Coordinator");
  if (!target) throw ValueError("LooperThread needs a target");
  std::optional<int64_t> interval_micros;
  if (timer_interval_secs) {
    // Zero is TensorFlow's "as often as possible, yet through the timed loop" (its own tests
    // loop with 0). `!(x >= 0)` also refuses NaN.
    if (!(*timer_interval_secs >= 0)) {
      throw ValueError("timer_interval_secs must not be negative, got " +
                       std::to_string(*timer_interval_secs));
    }
    interval_micros = std::llround(*timer_interval_secs * 1e6);
    // A positive interval shorter than a microsecond still moves the boundaries on.
    if (*timer_interval_secs > 0) interval_micros = std::max<int64_t>(1, *interval_micros);
  }
  if (name.empty()) name = "LooperThread-" + std::to_string(++g_looper_count);
  // make_shared cannot reach the private constructor.
  std::shared_ptr<LooperThread> looper(new LooperThread(
      std::move(name),
      [coord, interval_micros, target = std::move(target)] {
        RunLoop(coord, interval_micros, target);
      },
      timer_interval_secs));
  coord->RegisterThread(looper);
  return looper;
}

std::shared_ptr<LooperThread> LooperThread::Loop(Coordinator* coord,
                                                 std::optional<double> timer_interval_secs,
                                                 std::function<void()> target, std::string name) {
  std::shared_ptr<LooperThread> looper =
      Create(coord, timer_interval_secs, std::move(target), std::move(name));
  looper->Start();
  return looper;
}

}  // namespace mts
