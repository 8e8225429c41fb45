// queue_runner.h: the threads that keep a queue full: each runs one enqueue op over and over,
// and the queue is closed when they run out of input.
//
//   RecoverableSession
//     CoordinatedSession   starts every runner of the graph with the session, joins them at
//       HookedSession      Close
//         Chief / Worker
//           Session        <-- each thread runs its enqueue op through the session
//
// Each enqueue thread treats its op's errors so: a queue-closed code (default {kOutOfRange})
// ends the thread quietly, and the last thread to end so runs the close op; any other
// error goes to the Coordinator (or, without one, is logged and kept in
// exceptions_raised()); at a stop the threads end after their current run, and a
// close-on-stop thread runs the cancel op so that no thread stays blocked in a Run.
//
// Lifecycle: construct with the queue and its enqueue ops (AddQueueRunner puts it in the
// graph); CreateThreads(session, coord, start) once per session; coord->RequestStop() and
// coord->Join(threads). The session must outlive the threads.
//
// Thread safety: CreateThreads and the accessors may be called from any thread.
//
// Example:
//   Queue q = FIFOQueue(10, {DataType::kInt32}, {TensorShape{}});
//   AddQueueRunner(std::make_shared<QueueRunner>(
//       q, std::vector<Operation*>{q.Enqueue({counter.AssignAdd(Constant(1))})}));
//   auto threads = StartQueueRunners(session, &coord);
//
// TensorFlow: tf.train.QueueRunner, tf.train.add_queue_runner and
// tf.train.start_queue_runners (tensorflow/python/training/queue_runner_impl.py).
#ifndef MTS_SRC_04_COORDINATED_QUEUE_RUNNER_H_
#define MTS_SRC_04_COORDINATED_QUEUE_RUNNER_H_

#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "src/platform/errors.h"
#include "src/01_session/session_interface.h"
#include "src/04_coordinated/coordinated_thread.h"
#include "src/04_coordinated/coordinator.h"
#include "src/04_coordinated/queue/fifo_queue.h"

namespace mts {

/// Runs a queue's enqueue ops in threads, closing the queue when the input runs out.
class QueueRunner {
 public:
  /// A runner of `enqueue_ops` (one thread each) for `queue`. `close_op` defaults to
  /// `queue.Close()`, `cancel_op` to `queue.Close(true)` (both are added to the graph now).
  /// Errors of an enqueue op with a code in `queue_closed_error_codes` end its thread
  /// cleanly.
  /// \throws ValueError if the queue is null or there are no ops (`Must provide queue and
  ///   enqueue_ops.`).
  /// \throws TypeError if `queue_closed_error_codes` is empty or holds kOk.
  QueueRunner(Queue queue, std::vector<Operation*> enqueue_ops, Operation* close_op = nullptr,
              Operation* cancel_op = nullptr,
              std::vector<ErrorCode> queue_closed_error_codes = {ErrorCode::kOutOfRange});
  /// Forgets the runner; threads it made keep running on their own shared state.
  ~QueueRunner();
  QueueRunner(const QueueRunner&) = delete;
  QueueRunner& operator=(const QueueRunner&) = delete;

  /// The queue the ops fill.
  const Queue& queue() const;
  /// The queue's name.
  const std::string& name() const;
  /// The enqueue ops, one thread each.
  const std::vector<Operation*>& enqueue_ops() const;
  /// The op run once the enqueue threads have all met a queue-closed error.
  Operation* close_op() const;
  /// The op the close-on-stop thread runs when the Coordinator stops.
  Operation* cancel_op() const;
  /// The codes that mean "the input is exhausted".
  const std::vector<ErrorCode>& queue_closed_error_codes() const;

  // [mts:lab-contract-queue-runner]
  /// Makes the threads that run the enqueue ops in `session`: one per op, named
  /// `QueueRunnerThread-QUEUE-OP`, plus, when `coord` is given,
  /// `QueueRunnerThread-QUEUE-close_on_stop`. Each is registered with `coord` and started
  /// if `start`. Clears exceptions_raised().
  /// \returns no threads at all if threads made earlier for this session still run (or were
  ///   never started).
  /// \pre `session` and `coord` outlive the threads.
  std::vector<std::shared_ptr<CoordinatedThread>> CreateThreads(SessionInterface& session,
                                                                Coordinator* coord = nullptr,
                                                                bool start = false);
  // [mts:lab-contract-queue-runner-end]

  /// The errors enqueue threads met while running without a Coordinator, in order.
  std::vector<std::exception_ptr> exceptions_raised() const;

 private:
  // Shared with the threads, which may outlive a CreateThreads call (and, detached, this
  // object: see CoordinatedThread).
  struct State;
  static void RunEnqueueLoop(const std::shared_ptr<State>& state, SessionInterface* session,
                             Operation* enqueue_op, Coordinator* coord);
  // RunEnqueueLoop's two ways out other than a stop: the input ran out, or a failure.
  static void EndOfInput(State& state, SessionInterface* session);
  static void ReportError(State& state, SessionInterface* session, Coordinator* coord,
                          std::exception_ptr error);
  static void CloseOnStop(const std::shared_ptr<State>& state, SessionInterface* session,
                          Coordinator* coord);

  std::shared_ptr<State> state_;
};

/// Adds `runner` to the queue-runners collection of `graph` (the default graph if null).
/// \throws RuntimeError if the graph is finalized.
void AddQueueRunner(std::shared_ptr<QueueRunner> runner, Graph* graph = nullptr);

/// Creates and starts the threads of every runner in the queue-runners collection of `graph`
/// (the session's graph if null), registered with `coord`, and returns them all. Logs a
/// warning when the collection is empty. Given a session that RunsOwnQueueRunners (a
/// MonitoredSession), starts nothing and returns no threads, as TensorFlow does.
/// \pre `session` and `coord` outlive the threads.
std::vector<std::shared_ptr<CoordinatedThread>> StartQueueRunners(SessionInterface& session,
                                                                  Coordinator* coord = nullptr,
                                                                  Graph* graph = nullptr);

}  // namespace mts

#endif  // MTS_SRC_04_COORDINATED_QUEUE_RUNNER_H_
