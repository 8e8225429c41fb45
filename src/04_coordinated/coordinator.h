// coordinator.h: one stop flag and one error shared by a group of threads, and the join
// that waits for them.
//
//   RecoverableSession
//     CoordinatedSession   <-- owns a Coordinator (this file) for the threads beside the
//       HookedSession          session: queue runners, loopers, a hook's own threads
//         Chief / Worker
//           Session
//
// The first RequestStop wins and records its error, unless the error is clean: an OpError
// whose code is in the clean list (default {kOutOfRange}, "the input is done") stops the
// threads but is no error. Errors cross threads as std::exception_ptr, so Join rethrows the
// very exception a thread threw.
//
// Lifecycle: construct (clean codes, clock); start the threads, RegisterThread those Join
// must wait for; they run until ShouldStop() and report errors to RequestStop(error)
// (usually through StopOnException); the owner calls RequestStop() and Join(), which joins
// the threads that stopped, names the stragglers and rethrows the recorded error;
// optionally ClearStop() for another round.
//
// Thread safety: every method may be called from any thread at any time.
//
// Example (a thread body; coord.Join({thread}) then rethrows its error, if it had one):
//   coord.StopOnException([&] { while (!coord.ShouldStop()) ReadOneRecord(); });
//
// TensorFlow: tf.train.Coordinator (tensorflow/python/training/coordinator.py).
#ifndef MTS_SRC_04_COORDINATED_COORDINATOR_H_
#define MTS_SRC_04_COORDINATED_COORDINATOR_H_

#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "src/platform/errors.h"
#include "src/04_coordinated/coordinated_thread.h"
#include "src/platform/clock.h"

namespace mts {

/// A stop flag, the first error, and a join with a grace period, shared by a group of
/// threads.
class Coordinator {
 public:
  /// A coordinator for which OpErrors with a code in `clean_stop_error_codes` stop the
  /// threads without counting as errors (default: OutOfRangeError). For none, as
  /// MonitoredSession wants, pass `std::vector<ErrorCode>{}` (a bare `{}` would also match
  /// the deleted copy constructor). It waits on `clock` (RealClock() if null).
  explicit Coordinator(std::vector<ErrorCode> clean_stop_error_codes = {ErrorCode::kOutOfRange},
                       Clock* clock = RealClock());

  Coordinator(const Coordinator&) = delete;
  Coordinator& operator=(const Coordinator&) = delete;

  // [mts:lab-contract-coordinator]
  /// Asks every thread to stop: ShouldStop() turns true and WaitForStop() returns. If
  /// `error` is given, is not a clean stop, and no stop was requested before, it is recorded
  /// (logged as "Error reported to Coordinator: <type>, <message>") for Join() and
  /// RaiseRequestedException() to rethrow. Later errors, and errors after a plain stop, are
  /// dropped.
  ///
  /// Once Join() has finished, an `error` that is not a clean stop is instead rethrown here
  /// at once, and the stop flag is left as it was: the joined threads are gone, and nobody
  /// else would ever see it.
  void RequestStop(std::exception_ptr error = nullptr);

  /// Forgets the stop, the recorded error and joined(), for another round of threads.
  void ClearStop();

  /// Whether a stop has been requested.
  bool ShouldStop() const;

  /// Blocks until a stop is requested, or until `timeout_secs` of the clock have passed.
  /// A timeout of zero or less only looks. \returns ShouldStop() at the end of the wait.
  bool WaitForStop(std::optional<double> timeout_secs = std::nullopt);

  /// The C++ form of `with coord.stop_on_exception():` runs `body`, and if it throws
  /// anything at all, passes the exception to RequestStop() and swallows it: the error now
  /// belongs to the Coordinator, which rethrows it from Join(). Nothing escapes, except
  /// what RequestStop() rethrows once Join() has finished.
  void StopOnException(const std::function<void()>& body);

  /// Adds `thread` to the threads every Join() waits for, besides those passed to it.
  /// Registering a thread twice has no further effect. \pre `thread` is not null.
  void RegisterThread(std::shared_ptr<CoordinatedThread> thread);

  /// Waits for `threads` and the registered threads to end, then rethrows the first error.
  ///
  /// 1. Waits until a stop is requested or every thread has ended (without a stop, this
  ///    waits for as long as the threads run).
  /// 2. If threads are still running, gives them `stop_grace_period_secs` of the clock to
  ///    end.
  /// 3. Joins the threads that ended, marks the coordinator joined() and forgets the
  ///    registered threads.
  /// 4. Rethrows the recorded error, if there is one (it stays recorded), whether or not
  ///    threads are still running.
  ///
  /// Threads still running after the grace period are left running, and reported.
  /// \pre No thread is null.
  /// \throws RuntimeError "Coordinator stopped with threads still running: <names>", the
  ///   names separated by spaces as TensorFlow writes them, if threads outlived the grace
  ///   period, no error was recorded, and `ignore_live_threads` is false. With it true, the
  ///   same text is logged instead.
  void Join(const std::vector<std::shared_ptr<CoordinatedThread>>& threads = {},
            double stop_grace_period_secs = 120, bool ignore_live_threads = false);
  // [mts:lab-contract-coordinator-end]

  /// Whether Join() has finished (since construction or the last ClearStop()).
  bool joined() const;

  /// Rethrows the recorded error, if there is one; it stays recorded. Does nothing
  /// otherwise.
  void RaiseRequestedException() const;

  /// The clock this coordinator waits on.
  Clock* clock() const { return clock_; }

 private:
  // Whether `error` is an OpError with one of the clean codes.
  bool IsCleanStop(const std::exception_ptr& error) const;

  const std::vector<ErrorCode> clean_stop_error_codes_;
  Clock* const clock_;

  mutable std::mutex mu_;
  // Notified when a stop is requested and when a thread a Join waits for ends.
  std::condition_variable cv_;
  bool stop_requested_ = false;                                // Guarded by mu_.
  std::exception_ptr error_;                                   // Guarded by mu_.
  bool joined_ = false;                                        // Guarded by mu_.
  std::vector<std::shared_ptr<CoordinatedThread>> registered_; // Guarded by mu_.
};

}  // namespace mts

#endif  // MTS_SRC_04_COORDINATED_COORDINATOR_H_
