// coordinator.h: one stop flag and one error shared by a group of threads, and the join
// that waits for them (TensorFlow's tf.train.Coordinator).
//
//   RecoverableSession
//     CoordinatedSession   <-- owns a Coordinator (this file) for the threads beside the
//       HookedSession          session: queue runners, loopers, a hook's own threads
//         Chief / Worker
//           Session
//
// Training rarely runs on one thread. Queue runners fill input queues while the main loop
// trains; any of them may fail, and when one does, all of them must stop and the error must
// reach the main thread. The Coordinator is the meeting point:
//   - every thread asks ShouldStop() (or waits in WaitForStop) and ends when it says so;
//   - a thread that fails calls RequestStop(error), usually through StopOnException, which
//     records the error (only the first one, and only if no stop came before it) and stops
//     everyone;
//   - the owner calls Join(threads), which waits for the threads, gives them a grace period
//     once a stop was requested, and then rethrows the recorded error in the owner's thread.
//
// Errors cross threads as std::exception_ptr: the very exception a thread threw is the one
// Join rethrows, with its type intact.
//
// Clean stops: some errors mean "done", not "failed". An input thread that reaches the end
// of its data throws OutOfRangeError; by default that stops the threads but is recorded as no
// error at all. The clean kinds are a list of canonical ErrorCodes: an OpError whose code is
// listed is clean (mts has one OpError class per code, so this matches TensorFlow's "this
// class or a subclass"); anything else, including non-OpError exceptions, is an error. The
// default list is {kOutOfRange}; MonitoredSession passes an empty list, so there every
// exception a thread reports is rethrown.
//
// Lifecycle:
//   1. Construct (clean codes, clock); start threads, RegisterThread the ones Join should
//      wait for even if the caller forgets to pass them.
//   2. Threads run until ShouldStop(); errors go to RequestStop(error).
//   3. The owner calls RequestStop() when it is done, then Join(): the threads that stopped
//      are joined, the first error is rethrown, stragglers are reported by name.
//   4. Optionally ClearStop() and run another round with the same Coordinator.
//
// Thread safety: every method may be called from any thread at any time.
//
// Example:
//   Coordinator coord;
//   auto reader = std::make_shared<CoordinatedThread>("reader", [&coord] {
//     coord.StopOnException([&] { while (!coord.ShouldStop()) ReadOneRecord(); });
//   });
//   reader->Start();
//   while (!coord.ShouldStop()) TrainOneStep();
//   coord.RequestStop();
//   coord.Join({reader});  // rethrows the reader's error, if it had one
//
// Where mts departs from TensorFlow 1.15 (each is a fix of a weakness in the original):
//   - Join notices threads ending at once: each CoordinatedThread tells the waiting Join
//     when its body finishes. TensorFlow polls, in 1 s slices before a stop and in sleeps
//     doubling from 1 ms during the grace period, so it notices an exit up to a second (or a
//     whole doubled sleep) late.
//   - The grace period is measured on the Clock, with a deadline. TensorFlow subtracts the
//     sleeps it *asked* for, so every oversleep on a busy machine lengthens the grace period,
//     and its `>= 0` test adds one more sleep after the grace has run out.
//   - An exception passed in is always the one recorded and rethrown. TensorFlow records
//     whatever exception is being handled at the time (sys.exc_info()), and when none is,
//     a ValueError about that; an exception_ptr cannot go astray like that.
//   - Join joins the OS threads that stopped; the ones that did not are reported and left
//     running (see CoordinatedThread's destructor), as TensorFlow leaves daemon threads.
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
