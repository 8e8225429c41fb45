// faulty_thread_hook.h: a hook whose input thread fails when a schedule says so, so a test
// can preempt a run the way a dying queue runner does: through the Coordinator.
//
//   RecoverableSession     ShouldStop finds the thread's error and recovers
//     CoordinatedSession   <-- the error arrives here: recorded by the Coordinator
//       HookedSession      FaultyThreadHook: after a step, a thread it starts fails
//         Session
//
// The doubles of fault_injection.h fail a call on the training thread. A real input thread
// (a queue runner reading from a parameter server that restarted) fails on its own thread;
// what the layers above see is an error recorded in the Coordinator, which CoordinatedSession
// raises from ShouldStop, and RecoverableSession treats as a preemption. This hook makes that
// happen at a step a FaultSchedule chooses: each AfterRun counts one call of the schedule;
// on a fault it starts a thread, registered with the session's Coordinator, that raises the
// scheduled error under Coordinator::StopOnException, and waits for that thread to end. So
// the error is recorded before the step returns, deterministically, and the next ShouldStop
// sees it. Between faults no thread runs.
//
// Thread safety: called by one thread, as hooks are; the failing thread touches only the
// Coordinator (thread-safe).
//
// Example: 1% of steps end with an input thread's UnavailableError:
//
//   auto thread_faults = FaultSchedule::Random(0.01, {ErrorCode::kUnavailable}, /*seed=*/3);
//   hooks.push_back(std::make_shared<FaultyThreadHook>(thread_faults));
//
// TensorFlow: none; monitored_session_test.py raises from a thread it starts by hand.
#ifndef MTS_TESTS_TESTING_FAULTY_THREAD_HOOK_H_
#define MTS_TESTS_TESTING_FAULTY_THREAD_HOOK_H_

#include <cstdint>
#include <memory>

#include "src/03_hooked/session_run_hook.h"
#include "src/04_coordinated/coordinator.h"
#include "tests/testing/fault_injection.h"

namespace mts {

/// A hook that makes a coordinated thread fail after the steps a schedule names.
class FaultyThreadHook : public SessionRunHook {
 public:
  /// Each AfterRun counts one call of `schedule` and, on a fault, has a thread raise it.
  explicit FaultyThreadHook(std::shared_ptr<FaultSchedule> schedule);

  /// Remembers the coordinator of the new session's threads.
  void AfterCreateSession(SessionInterface& session, Coordinator* coord) override;
  /// Counts one call; on a fault, starts a thread registered with the coordinator that
  /// raises the scheduled error under StopOnException, and waits for it to end. Never
  /// throws itself: the error belongs to the coordinator.
  void AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) override;

  /// Threads that failed so far.
  int64_t threads_failed() const { return threads_failed_; }

 private:
  std::shared_ptr<FaultSchedule> schedule_;
  Coordinator* coord_ = nullptr;  // The current session's; replaced on every creation.
  int64_t threads_failed_ = 0;
};

}  // namespace mts

#endif  // MTS_TESTS_TESTING_FAULTY_THREAD_HOOK_H_
