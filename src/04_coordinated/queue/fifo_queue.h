// fifo_queue.h: a first-in, first-out queue of tensors, built from graph ops.
//
//   CoordinatedSession   starts the QueueRunner threads that fill queues, and stops them
//     ...
//       Session          <-- runs the queue ops; each session holds its own queue state
//
// `FIFOQueue(...)` adds one op that declares the queue and returns a `Queue` handle whose
// methods add the ops that use it; they act on the session's FIFOQueueResource and may
// block inside a Run. In one session:
//   1. Open: an enqueue waits for room, a dequeue for an element.
//   2. Closed (a `Close()` op ran): enqueues fail with CancelledError; dequeues drain what
//      is left, then fail with OutOfRangeError, the clean "input is exhausted".
//   3. `Close(true)` also fails the enqueues that are waiting, at once (CancelledError).
//   4. The session closes: every op still waiting fails with CancelledError naming the queue.
//
// Thread safety: the handle is immutable; any number of threads may run the queue's ops.
//
// Example:
//   Queue q = FIFOQueue(2, {DataType::kInt32}, {TensorShape{}}, "q");
//   session.Run(q.Enqueue({Constant(7)}));
//   session.Run(q.Dequeue()[0]);              // 7
//
// TensorFlow: tf.FIFOQueue and tf.QueueBase (tensorflow/python/ops/data_flow_ops.py); the
// ops FIFOQueueV2, QueueEnqueue(Many)V2, QueueDequeue(Many)V2, QueueCloseV2, QueueSizeV2.
#ifndef MTS_SRC_04_COORDINATED_QUEUE_FIFO_QUEUE_H_
#define MTS_SRC_04_COORDINATED_QUEUE_FIFO_QUEUE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "src/01_session/graph.h"

namespace mts {

/// A handle to a queue declared in a graph; its methods add the ops that use the queue.
class Queue {
 public:
  /// A null handle.
  Queue() = default;
  /// A handle to an existing FIFOQueueV2 op (one found by name, say).
  /// \throws TypeError if `queue_op` is not a FIFOQueueV2 op.
  explicit Queue(Operation* queue_op);

  /// The queue op's name, e.g. "input/fifo_queue"; error messages quote it.
  const std::string& name() const;
  /// The FIFOQueueV2 op.
  Operation* queue_op() const { return op_; }
  /// The most elements the queue holds (negative: unbounded).
  int64_t capacity() const;
  /// The dtype of each component of an element.
  const std::vector<DataType>& dtypes() const { return dtypes_; }
  /// The shape of each component, or empty when the shapes were not specified.
  const std::vector<TensorShape>& shapes() const { return shapes_; }

  /// An op that appends one element, made of `components`, waiting while the queue is full.
  /// Default name `QUEUE_enqueue`. Running it raises InvalidArgumentError for a component
  /// of the wrong shape, and CancelledError on a closed queue.
  /// \throws ValueError at build time, naming the op, for a wrong number of components or
  ///   an incompatible static shape; the graph is unchanged.
  /// \throws TypeError at build time, naming the op, for a component of the wrong dtype.
  Operation* Enqueue(const std::vector<Output>& components, const std::string& name = "") const;
  /// An op that appends every row of `components` (their first dimension is the batch; all
  /// must agree) as one uninterrupted sequence of elements. Default name
  /// `QUEUE_EnqueueMany`. Errors as for Enqueue.
  /// \throws ValueError also for a scalar component (it has no batch dimension).
  Operation* EnqueueMany(const std::vector<Output>& components,
                         const std::string& name = "") const;
  /// One output per component: the oldest element, removed, waiting while the queue is
  /// empty. Default name `QUEUE_Dequeue`. Running it on a closed, empty queue raises
  /// OutOfRangeError("FIFOQueue 'q' is closed and has insufficient elements (requested 1,
  /// current size 0)").
  std::vector<Output> Dequeue(const std::string& name = "") const;
  /// One output per component: the `n` oldest elements, stacked along a new first
  /// dimension of size n. Default name `QUEUE_DequeueMany`. Running it raises
  /// InvalidArgumentError when the queue's shapes were not specified, and OutOfRangeError
  /// when the queue is closed with too few elements (none is removed then).
  /// \throws ValueError if n < 0.
  std::vector<Output> DequeueMany(int64_t n, const std::string& name = "") const;
  /// An op that closes the queue. With `cancel_pending_enqueues`, enqueues waiting for room
  /// fail at once. Default name `QUEUE_Close`. Running a plain close on a closed queue
  /// raises CancelledError("Queue 'q' is already closed."); a cancelling close never fails.
  Operation* Close(bool cancel_pending_enqueues = false, const std::string& name = "") const;
  /// An int32 scalar: the number of elements in the queue. Default name `QUEUE_Size`.
  Output Size(const std::string& name = "") const;

 private:
  Operation* AddQueueOp(const std::string& type, const std::string& name,
                        const std::string& default_suffix, std::vector<Output> inputs,
                        AttrMap attrs = {}) const;

  Operation* op_ = nullptr;
  std::vector<DataType> dtypes_;
  std::vector<TensorShape> shapes_;
};

/// Declares a FIFO queue in the default graph holding at most `capacity` elements (a
/// negative capacity: no bound) of `dtypes.size()` components. `shapes` is empty, or gives
/// one fully defined shape per component; dequeued outputs then have those static shapes,
/// and only then can DequeueMany stack elements.
/// \throws ValueError if `dtypes` is empty, if `shapes` has another length than `dtypes`,
///   or if a shape is not fully defined; the graph is unchanged.
Queue FIFOQueue(int64_t capacity, const std::vector<DataType>& dtypes,
                const std::vector<TensorShape>& shapes = {},
                const std::string& name = "fifo_queue");

}  // namespace mts

#endif  // MTS_SRC_04_COORDINATED_QUEUE_FIFO_QUEUE_H_
