// fifo_queue_resource.h: one session's state of one FIFOQueue: the elements, the closed flag,
// and the lines of blocked enqueuers and dequeuers.
//
// Stage 04: a Session's ResourceMgr owns one per FIFOQueue op; the queue ops' kernels
// (fifo_queue.cc) call one method each. Enqueue attempts are served in arrival order, and
// so are dequeue attempts; a DequeueMany at the head of the line takes elements as they come
// (n may exceed the capacity); a Close without cancellation takes its place in the enqueue
// line. A waiter is woken only when its condition holds; a close or the session closing
// wakes them all. Every method may be called from any thread.
//
// TensorFlow: QueueBase and FIFOQueue (tensorflow/core/kernels/queue_base.h, fifo_queue.h).
#ifndef MTS_SRC_04_COORDINATED_QUEUE_FIFO_QUEUE_RESOURCE_H_
#define MTS_SRC_04_COORDINATED_QUEUE_FIFO_QUEUE_RESOURCE_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "src/01_session/op_kernel_context.h"
#include "src/01_session/resource_mgr.h"
#include "src/01_session/tensor.h"

namespace mts {

/// What a queue holds, as its FIFOQueueV2 op declares it: one dtype per component, and one
/// fully defined shape per component or none at all (shapes unspecified).
struct QueueComponents {
  std::vector<DataType> dtypes;     ///< Component dtypes, in order.
  std::vector<TensorShape> shapes;  ///< Component shapes; empty when unspecified.
};

/// Reads the components back from a FIFOQueueV2 op's attributes ("num_components",
/// `component_type_I`, and `shape_I` when shapes are specified).
QueueComponents QueueComponentsOf(const Operation& queue_op);

/// The elements and blocked callers of one FIFOQueue in one session.
class FIFOQueueResource : public ResourceBase {
 public:
  /// One queue element: a tensor per component.
  using Tuple = std::vector<Tensor>;

  /// An empty, open queue named `name` holding at most `capacity` elements (a negative
  /// capacity means unbounded). `shapes` is empty when the component shapes are unspecified.
  FIFOQueueResource(std::string name, int64_t capacity, std::vector<DataType> dtypes,
                    std::vector<TensorShape> shapes);

  /// Makes the resource for a FIFOQueueV2 op, from its attributes (the OpDef factory).
  static std::shared_ptr<ResourceBase> Create(const Operation& owner);

  /// Appends one element, waiting for room and for earlier enqueuers.
  /// \pre `tuple` was validated against the queue's dtypes and shapes.
  /// \throws CancelledError naming `op_name` if the queue is closed when this enqueue's turn
  ///   comes ("FIFOQueue 'q' is closed."), if a close with cancel_pending_enqueues catches it
  ///   waiting, or if the session closes; nothing was added.
  /// \throws DeadlineExceededError if `deadline` (the run's RunOptions::timeout_in_ms, null
  ///   for none) passes while waiting; nothing was added and later enqueuers go on.
  void Enqueue(Tuple tuple, const std::string& op_name, const RunDeadline* deadline = nullptr);

  /// Appends the rows of `batch` (each component's first dimension) in order, as room
  /// appears; no other enqueue interleaves. An empty batch returns at once, closed or not.
  /// \throws CancelledError as Enqueue; rows added before the cancellation stay queued.
  void EnqueueMany(const Tuple& batch, const std::string& op_name);

  /// Removes and returns the oldest element, waiting for one and for earlier dequeuers.
  /// \throws OutOfRangeError naming `op_name` if the queue is closed and empty.
  /// \throws CancelledError if the session closes while waiting. The queue is unchanged.
  /// \throws DeadlineExceededError if `deadline` passes while waiting, as Enqueue.
  Tuple Dequeue(const std::string& op_name, const RunDeadline* deadline = nullptr);

  /// Removes the `n` oldest elements and returns each component stacked along a new first
  /// dimension, taking elements as they arrive.
  /// \pre n >= 0 and the component shapes are specified.
  /// \throws OutOfRangeError if the queue is closed with fewer than the elements still
  ///   missing ("requested" counts those, "current size" the queue without them); elements
  ///   taken so far go back to the front, so the queue is unchanged.
  /// \throws CancelledError if the session closes while waiting.
  Tuple DequeueMany(int64_t n, const std::string& op_name);

  /// Closes the queue: later enqueues fail, dequeues drain what is left, then fail.
  /// Without `cancel_pending_enqueues` this waits behind the enqueues that arrived earlier
  /// (they complete first). With it, those waiting enqueues fail at once with
  /// CancelledError("Enqueue operation was cancelled") and this returns immediately.
  /// \throws CancelledError if, without cancellation, the queue was already closed
  ///   ("Queue 'q' is already closed."), or if the session closes while waiting.
  void CloseQueue(bool cancel_pending_enqueues, const std::string& op_name);

  /// The number of elements in the queue (not counting those a DequeueMany holds).
  int32_t Size();

  /// The session is closing: every blocked or later call fails with CancelledError.
  void Close() override;

  /// The queue's name (its FIFOQueue op's name).
  const std::string& name() const { return name_; }
  /// The dtype of each component.
  const std::vector<DataType>& dtypes() const { return dtypes_; }
  /// The shape of each component; empty when unspecified.
  const std::vector<TensorShape>& shapes() const { return shapes_; }

  /// For tests, the seam that replaces sleeping: blocks until at least `enqueuers` callers
  /// in the enqueue line (enqueues and plain closes) and `dequeuers` in the dequeue line are
  /// waiting and could not go on in the queue's present state.
  void WaitForBlockedCallers(int enqueuers, int dequeuers);

 private:
  // A caller waiting in one of the lines: what it waits for, and its own condition
  // variable, so that a change wakes exactly the callers it lets go on (see WakeReadyLocked).
  struct Waiter {
    const std::function<bool()>* ready;
    std::condition_variable cv;
  };
  // Wakes, as a method lets go of `mu_`, the waiters its changes made ready (see
  // WakeReadyLocked): the destructor runs while the lock is still held, on every way out.
  class WakeReadyOnExit;

  bool HasRoomLocked() const;
  // Pushes `rows` back at the front of the queue, last row first (DequeueMany undoing).
  void RestoreLocked(std::deque<Tuple>& rows);
  // Leaves the head of a line: lets the next ticket holder go.
  void FinishEnqueueTurnLocked();
  void FinishDequeueTurnLocked();
  // Gives up a ticket whose holder stopped waiting (its run's deadline passed): its turn is
  // passed on now if it is the one served, or skipped when it comes.
  void AbandonEnqueueTicketLocked(uint64_t ticket);
  void AbandonDequeueTicketLocked(uint64_t ticket);
  // Wakes every waiter, in both lines, whose condition now holds, and no other. Called
  // before the lock is let go, by waiting or by returning, after any change of the state.
  void WakeReadyLocked();
  // Waits until `ready()`, listed in `waiters` meanwhile (see WaitForBlockedCallers and
  // WakeReadyLocked), or until `deadline` (null: none) passes. Returns `ready()`.
  template <typename Ready>
  bool WaitLocked(std::unique_lock<std::mutex>& lock, std::vector<Waiter*>& waiters, Ready ready,
                  const RunDeadline* deadline = nullptr);
  [[noreturn]] void ThrowSessionClosed(const char* what, const std::string& op_name) const;

  const std::string name_;
  const int64_t capacity_;
  const std::vector<DataType> dtypes_;
  const std::vector<TensorShape> shapes_;

  std::mutex mu_;
  // Wakes WaitForBlockedCallers: a caller started waiting.
  std::condition_variable blocked_cv_;
  std::deque<Tuple> elements_;  // Guarded by mu_.
  // The callers now waiting in each line: enqueues and plain closes, and dequeues.
  std::vector<Waiter*> enqueue_waiters_;  // Guarded by mu_.
  std::vector<Waiter*> dequeue_waiters_;  // Guarded by mu_.
  bool closed_ = false;                   // Guarded by mu_.
  bool session_closed_ = false;           // Guarded by mu_.
  // The two lines: each caller takes the next ticket and waits until it is served.
  uint64_t next_enqueue_ticket_ = 0;     // Guarded by mu_.
  uint64_t serving_enqueue_ticket_ = 0;  // Guarded by mu_.
  uint64_t next_dequeue_ticket_ = 0;     // Guarded by mu_.
  uint64_t serving_dequeue_ticket_ = 0;  // Guarded by mu_.
  // Enqueue tickets below this were cancelled by a close with cancel_pending_enqueues.
  uint64_t cancelled_enqueue_tickets_ = 0;  // Guarded by mu_.
  // Tickets given up before their turn (a run's deadline passed); skipped when served.
  std::set<uint64_t> abandoned_enqueue_tickets_;  // Guarded by mu_.
  std::set<uint64_t> abandoned_dequeue_tickets_;  // Guarded by mu_.
};

}  // namespace mts

#endif  // MTS_SRC_04_COORDINATED_QUEUE_FIFO_QUEUE_RESOURCE_H_
