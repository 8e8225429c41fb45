// looper_thread.h: a coordinated thread that calls one function over and over, back to back
// or on a fixed timer, until its Coordinator says stop (TensorFlow's LooperThread).
//
//   RecoverableSession
//     CoordinatedSession   owns the Coordinator that stops and joins this thread
//       HookedSession
//         Chief / Worker
//           Session
//   LooperThread           <-- this file: a CoordinatedThread with a loop built in
//
// Many service threads are the same loop: "until told to stop, do X; maybe wait a while".
// A LooperThread is that loop, written once, correctly:
//   - it registers with its Coordinator when created, so Join() waits for it;
//   - the loop runs inside StopOnException, so an exception from the target stops every
//     thread of the Coordinator and is rethrown by Join();
//   - without an interval, the target is called back to back until ShouldStop();
//   - with an interval, the first call is immediate and the next ones fall on fixed
//     boundaries (start, start + interval, start + 2 * interval, ...) however long each call
//     takes. Between calls it waits in WaitForStop, so a stop wakes it at once and no time
//     is spent sleeping after a stop.
//
// A call that overruns its interval makes the next call late, and it runs as soon as the
// overrunning one returns. If a call overruns by several intervals, TensorFlow then makes
// one call per missed boundary, back to back, to catch up. mts does not: the missed
// boundaries collapse into that one late call, after which the calls return to the
// boundaries. A loop that writes a summary every 10 s should not write five identical ones
// after a 50 s stall.
//
// Lifecycle: Create (registers it) or Loop (creates and starts it); the target runs on the
// thread until a stop; Coordinator::Join joins it.
//
// Thread safety: as CoordinatedThread. The target runs on the looper thread only.
//
// Why no StartLoop/RunLoop/StopLoop virtuals, as in TensorFlow: a subclass's virtuals would
// run on the thread while the object that holds them may be destroyed by its owner (a
// straggler outlives its owner; see CoordinatedThread). Closures own what they use, so the
// loop takes a target function; put set-up and tear-down at the start and end of it, or
// around it in a plain CoordinatedThread.
//
// Example:
//   Coordinator coord;
//   LooperThread::Loop(&coord, 10.0, [&] { writer.Flush(); });  // every 10 s
//   ...
//   coord.RequestStop();
//   coord.Join();  // joins the looper: it was registered
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
