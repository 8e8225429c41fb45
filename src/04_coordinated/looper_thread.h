// looper_thread.h: a coordinated thread that calls one function over and over, back to back
// or on a fixed timer, until its Coordinator says stop.
//
// Stage 04, beside the stack, a CoordinatedThread: it registers with its Coordinator when
// created and runs its loop in StopOnException. With an interval the calls fall on the
// boundaries start + k * interval; a call that overruns makes the next one late, and the
// missed boundaries collapse into that one call. Between calls it waits in WaitForStop.
//
// Lifecycle: Create (registers it) or Loop (also starts it); Coordinator::Join joins it.
// Thread safety: as CoordinatedThread; the target runs on the looper thread only.
//
// Example: LooperThread::Loop(&coord, 10.0, [&] { writer.Flush(); });  // every 10 s
//
// TensorFlow: tf.train.LooperThread (tensorflow/python/training/coordinator.py).
#ifndef MTS_SRC_04_COORDINATED_LOOPER_THREAD_H_
#define MTS_SRC_04_COORDINATED_LOOPER_THREAD_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "src/04_coordinated/coordinated_thread.h"
#include "src/04_coordinated/coordinator.h"

namespace mts {

/// A CoordinatedThread that calls a target repeatedly until its Coordinator stops.
class LooperThread : public CoordinatedThread {
 public:
  /// Makes a looper that calls `target` every `timer_interval_secs` seconds of the
  /// coordinator's clock (back to back if std::nullopt) and registers it with `coord`. It
  /// does not start; call Start(). `name` defaults to "LooperThread-<n>", n counting from 1
  /// across the process.
  /// \pre `coord` outlives the thread's body. \throws ValueError if `coord` is null,
  ///   `target` is empty, or the interval is negative (or NaN). Zero calls the target as
  ///   often as it can, as TensorFlow's does.
  static std::shared_ptr<LooperThread> Create(Coordinator* coord,
                                              std::optional<double> timer_interval_secs,
                                              std::function<void()> target,
                                              std::string name = "");

  /// Create() and Start() in one call: a started looper, registered with `coord`.
  /// \throws ValueError as Create() does.
  static std::shared_ptr<LooperThread> Loop(Coordinator* coord,
                                            std::optional<double> timer_interval_secs,
                                            std::function<void()> target,
                                            std::string name = "");

  /// The interval between boundaries, or std::nullopt for back-to-back calls.
  std::optional<double> timer_interval_secs() const { return timer_interval_secs_; }

 private:
  LooperThread(std::string name, std::function<void()> body,
               std::optional<double> timer_interval_secs);

  const std::optional<double> timer_interval_secs_;
};

}  // namespace mts

#endif  // MTS_SRC_04_COORDINATED_LOOPER_THREAD_H_
