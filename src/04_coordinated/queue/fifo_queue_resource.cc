#include "src/04_coordinated/queue/fifo_queue_resource.h"

#include <algorithm>
#include <utility>

#include "src/01_session/operation.h"

namespace mts {

namespace {

// Row `row` of `batch` (its first dimension removed), copied into a tensor of its own.
Tensor SliceRow(const Tensor& batch, int64_t row) {
  const std::vector<int64_t>& dims = batch.shape().dims();
  Tensor out(batch.dtype(), TensorShape(std::vector<int64_t>(dims.begin() + 1, dims.end())));
  const int64_t stride = out.num_elements();
  DispatchDataType(batch.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* from = batch.data<T>() + row * stride;
    std::copy(from, from + stride, out.data<T>());
  });
  return out;
}

// Component `c` of every row, stacked along a new first dimension.
Tensor StackComponent(const std::deque<FIFOQueueResource::Tuple>& rows, int c, DataType dtype,
                      const TensorShape& element_shape) {
  std::vector<int64_t> dims{static_cast<int64_t>(rows.size())};
  dims.insert(dims.end(), element_shape.dims().begin(), element_shape.dims().end());
  Tensor out(dtype, TensorShape(std::move(dims)));
  const int64_t stride = element_shape.num_elements();
  DispatchDataType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* to = out.data<T>();
    for (const FIFOQueueResource::Tuple& row : rows) {
      const T* from = row[c].data<T>();
      to = std::copy(from, from + stride, to);
    }
  });
  return out;
}

}  // namespace

QueueComponents QueueComponentsOf(const Operation& queue_op) {
  QueueComponents components;
  const int64_t n = queue_op.attr<int64_t>("num_components");
  for (int64_t i = 0; i < n; ++i) {
    const std::string suffix = std::to_string(i);
    components.dtypes.push_back(queue_op.attr<DataType>("component_type_" + suffix));
    if (queue_op.HasAttr("shape_" + suffix)) {
      components.shapes.push_back(queue_op.attr<TensorShape>("shape_" + suffix));
    }
  }
  return components;
}

FIFOQueueResource::FIFOQueueResource(std::string name, int64_t capacity,
                                     std::vector<DataType> dtypes, std::vector<TensorShape> shapes)
    : name_(std::move(name)),
      capacity_(capacity),
      dtypes_(std::move(dtypes)),
      shapes_(std::move(shapes)) {}

std::shared_ptr<ResourceBase> FIFOQueueResource::Create(const Operation& owner) {
  QueueComponents components = QueueComponentsOf(owner);
  return std::make_shared<FIFOQueueResource>(owner.name(), owner.attr<int64_t>("capacity"),
                                             std::move(components.dtypes),
                                             std::move(components.shapes));
}

bool FIFOQueueResource::HasRoomLocked() const {
  return capacity_ < 0 || static_cast<int64_t>(elements_.size()) < capacity_;
}

namespace {

// Moves `serving` past the tickets in `abandoned`, forgetting those left behind.
void SkipAbandoned(uint64_t& serving, std::set<uint64_t>& abandoned) {
  while (!abandoned.empty() && *abandoned.begin() <= serving) {
    if (*abandoned.begin() == serving) ++serving;
    abandoned.erase(abandoned.begin());
  }
}

}  // namespace

void FIFOQueueResource::FinishEnqueueTurnLocked() {
  ++serving_enqueue_ticket_;
  SkipAbandoned(serving_enqueue_ticket_, abandoned_enqueue_tickets_);
}

void FIFOQueueResource::FinishDequeueTurnLocked() {
  ++serving_dequeue_ticket_;
  SkipAbandoned(serving_dequeue_ticket_, abandoned_dequeue_tickets_);
}

void FIFOQueueResource::AbandonEnqueueTicketLocked(uint64_t ticket) {
  if (ticket == serving_enqueue_ticket_) {
    FinishEnqueueTurnLocked();
  } else if (ticket > serving_enqueue_ticket_) {
    abandoned_enqueue_tickets_.insert(ticket);
  }
}

void FIFOQueueResource::AbandonDequeueTicketLocked(uint64_t ticket) {
  if (ticket == serving_dequeue_ticket_) {
    FinishDequeueTurnLocked();
  } else if (ticket > serving_dequeue_ticket_) {
    abandoned_dequeue_tickets_.insert(ticket);
  }
}

void FIFOQueueResource::RestoreLocked(std::deque<Tuple>& rows) {
  while (!rows.empty()) {
    elements_.push_front(std::move(rows.back()));
    rows.pop_back();
  }
}

// [mts:queue-wake]
void FIFOQueueResource::WakeReadyLocked() {
  // Every waiter's condition reads only state guarded by mu_, which we hold: one that is
  // false now stays false until someone changes the state, and that caller will look again
  // before it lets go of the lock. So no wake-up is lost, and a waiter is woken only when
  // it can go on.
  for (std::vector<Waiter*>* line : {&enqueue_waiters_, &dequeue_waiters_}) {
    for (Waiter* waiter : *line) {
      if ((*waiter->ready)()) waiter->cv.notify_one();
    }
  }
}

class FIFOQueueResource::WakeReadyOnExit {
 public:
  explicit WakeReadyOnExit(FIFOQueueResource& queue) : queue_(queue) {}
  ~WakeReadyOnExit() { queue_.WakeReadyLocked(); }
  WakeReadyOnExit(const WakeReadyOnExit&) = delete;
  WakeReadyOnExit& operator=(const WakeReadyOnExit&) = delete;

 private:
  FIFOQueueResource& queue_;
};

template <typename Ready>
bool FIFOQueueResource::WaitLocked(std::unique_lock<std::mutex>& lock,
                                   std::vector<Waiter*>& waiters, Ready ready,
                                   const RunDeadline* deadline) {
  if (ready()) return true;
  // Listed while waiting, so that a change that lets us go on wakes us, and so that
  // WaitForBlockedCallers can ask whether we could go on now (a waiter that was notified
  // but has not woken yet is not blocked).
  const std::function<bool()> check = ready;
  Waiter self{&check, {}};
  waiters.push_back(&self);
  while (!ready()) {
    // What this call changed before waiting (elements added or taken) may free others.
    WakeReadyLocked();
    blocked_cv_.notify_all();
    if (deadline == nullptr) {
      self.cv.wait(lock);
      continue;
    }
    const int64_t left = deadline->micros - deadline->clock->NowMicros();
    if (left <= 0) break;
    deadline->clock->WaitFor(lock, self.cv, left, [&] { return ready(); });
  }
  waiters.erase(std::find(waiters.begin(), waiters.end(), &self));
  return ready();
}
// [mts:queue-wake-end]

void FIFOQueueResource::WaitForBlockedCallers(int enqueuers, int dequeuers) {
  auto blocked = [](const std::vector<Waiter*>& waiters) {
    return std::count_if(waiters.begin(), waiters.end(),
                         [](const Waiter* waiter) { return !(*waiter->ready)(); });
  };
  std::unique_lock<std::mutex> lock(mu_);
  blocked_cv_.wait(lock, [&] {
    return blocked(enqueue_waiters_) >= enqueuers && blocked(dequeue_waiters_) >= dequeuers;
  });
}

void FIFOQueueResource::ThrowSessionClosed(const char* what, const std::string& op_name) const {
  // TensorFlow reports "<what> operation was cancelled" when the session's cancellation
  // reaches a blocked queue op; we add which queue, and why.
  throw CancelledError(std::string(what) +
                           " operation was cancelled: the session was closed (FIFOQueue '" + name_ +
                           "')",
                       op_name);
}

// [mts:enqueue-kernel]
void FIFOQueueResource::Enqueue(Tuple tuple, const std::string& op_name,
                                const RunDeadline* deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  WakeReadyOnExit wake(*this);  // Whoever our turn's end or our element lets go on.
  const uint64_t ticket = next_enqueue_ticket_++;
  const bool ready = WaitLocked(
      lock, enqueue_waiters_,
      [&] {
        return session_closed_ || ticket < cancelled_enqueue_tickets_ ||
               (ticket == serving_enqueue_ticket_ && (closed_ || HasRoomLocked()));
      },
      deadline);
  if (!ready) {
    AbandonEnqueueTicketLocked(ticket);
    throw DeadlineExceededError(kRunTimedOutMessage, op_name);
  }
  if (session_closed_) ThrowSessionClosed("Enqueue", op_name);
  if (ticket < cancelled_enqueue_tickets_) {
    throw CancelledError("Enqueue operation was cancelled", op_name);
  }
  FinishEnqueueTurnLocked();
  if (closed_) throw CancelledError("FIFOQueue '" + name_ + "' is closed.", op_name);
  elements_.push_back(std::move(tuple));
}
// [mts:enqueue-kernel-end]

void FIFOQueueResource::EnqueueMany(const Tuple& batch, const std::string& op_name) {
  const int64_t num_rows = batch.front().shape().dim(0);
  if (num_rows == 0) return;  // TensorFlow completes an empty batch without looking.
  // Slice outside the lock: consumers should not wait for our copying.
  std::deque<Tuple> rows(num_rows);
  for (int64_t r = 0; r < num_rows; ++r) {
    for (const Tensor& component : batch) rows[r].push_back(SliceRow(component, r));
  }

  std::unique_lock<std::mutex> lock(mu_);
  WakeReadyOnExit wake(*this);
  const uint64_t ticket = next_enqueue_ticket_++;
  // Holding the head of the line, add rows whenever there is room: no other enqueue can
  // slip in between them.
  while (true) {
    WaitLocked(lock, enqueue_waiters_, [&] {
      return session_closed_ || ticket < cancelled_enqueue_tickets_ ||
             (ticket == serving_enqueue_ticket_ && (closed_ || HasRoomLocked()));
    });
    if (session_closed_) ThrowSessionClosed("Enqueue", op_name);
    if (ticket < cancelled_enqueue_tickets_) {
      throw CancelledError("Enqueue operation was cancelled", op_name);
    }
    if (closed_) {
      FinishEnqueueTurnLocked();
      throw CancelledError("FIFOQueue '" + name_ + "' is closed.", op_name);
    }
    while (HasRoomLocked() && !rows.empty()) {
      elements_.push_back(std::move(rows.front()));
      rows.pop_front();
    }
    if (rows.empty()) {
      FinishEnqueueTurnLocked();
      return;
    }
  }
}

// [mts:dequeue-kernel]
FIFOQueueResource::Tuple FIFOQueueResource::Dequeue(const std::string& op_name,
                                                    const RunDeadline* deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  WakeReadyOnExit wake(*this);  // Whoever our turn's end or the room we make lets go on.
  const uint64_t ticket = next_dequeue_ticket_++;
  // Wait for our turn, then for an element, or for the close that means none will come.
  const bool ready = WaitLocked(
      lock, dequeue_waiters_,
      [&] {
        return session_closed_ ||
               (ticket == serving_dequeue_ticket_ && (!elements_.empty() || closed_));
      },
      deadline);
  if (!ready) {
    AbandonDequeueTicketLocked(ticket);
    throw DeadlineExceededError(kRunTimedOutMessage, op_name);
  }
  if (session_closed_) ThrowSessionClosed("Dequeue", op_name);
  FinishDequeueTurnLocked();
  if (elements_.empty()) {
    throw OutOfRangeError("FIFOQueue '" + name_ +
                              "' is closed and has insufficient elements (requested 1, "
                              "current size 0)",
                          op_name);
  }
  Tuple tuple = std::move(elements_.front());
  elements_.pop_front();
  return tuple;
}
// [mts:dequeue-kernel-end]

FIFOQueueResource::Tuple FIFOQueueResource::DequeueMany(int64_t n, const std::string& op_name) {
  std::deque<Tuple> taken;
  if (n > 0) {
    std::unique_lock<std::mutex> lock(mu_);
    WakeReadyOnExit wake(*this);
    const uint64_t ticket = next_dequeue_ticket_++;
    while (true) {
      WaitLocked(lock, dequeue_waiters_, [&] {
        return session_closed_ ||
               (ticket == serving_dequeue_ticket_ && (!elements_.empty() || closed_));
      });
      if (session_closed_) {
        RestoreLocked(taken);
        ThrowSessionClosed("Dequeue", op_name);
      }
      const int64_t missing = n - static_cast<int64_t>(taken.size());
      const int64_t size = static_cast<int64_t>(elements_.size());
      if (closed_ && size < missing) {
        // No producer can finish the batch: hand back what we took, as TensorFlow does, so
        // a smaller request can still drain it.
        RestoreLocked(taken);
        FinishDequeueTurnLocked();
        throw OutOfRangeError(
            "FIFOQueue '" + name_ + "' is closed and has insufficient elements (requested " +
                std::to_string(missing) + ", current size " + std::to_string(size) + ")",
            op_name);
      }
      while (!elements_.empty() && static_cast<int64_t>(taken.size()) < n) {
        taken.push_back(std::move(elements_.front()));
        elements_.pop_front();
      }
      if (static_cast<int64_t>(taken.size()) == n) {
        FinishDequeueTurnLocked();
        break;
      }
    }
  }
  // Stack outside the lock; `shapes_` and `dtypes_` never change.
  Tuple stacked;
  for (size_t c = 0; c < dtypes_.size(); ++c) {
    stacked.push_back(StackComponent(taken, static_cast<int>(c), dtypes_[c], shapes_[c]));
  }
  return stacked;
}

void FIFOQueueResource::CloseQueue(bool cancel_pending_enqueues, const std::string& op_name) {
  std::unique_lock<std::mutex> lock(mu_);
  WakeReadyOnExit wake(*this);
  if (cancel_pending_enqueues) {
    // Every enqueue waiting now (and a close waiting in the same line) fails; the line
    // restarts empty, and whatever arrives later finds the queue closed.
    closed_ = true;
    cancelled_enqueue_tickets_ = next_enqueue_ticket_;
    serving_enqueue_ticket_ = next_enqueue_ticket_;
    return;
  }
  // A plain close waits its turn behind the enqueues that came first.
  const uint64_t ticket = next_enqueue_ticket_++;
  WaitLocked(lock, enqueue_waiters_, [&] {
    return session_closed_ || ticket < cancelled_enqueue_tickets_ ||
           ticket == serving_enqueue_ticket_;
  });
  if (session_closed_) ThrowSessionClosed("Close", op_name);
  if (ticket < cancelled_enqueue_tickets_) {
    throw CancelledError("Enqueue operation was cancelled", op_name);
  }
  FinishEnqueueTurnLocked();
  if (closed_) throw CancelledError("Queue '" + name_ + "' is already closed.", op_name);
  closed_ = true;
}

int32_t FIFOQueueResource::Size() {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int32_t>(elements_.size());
}

void FIFOQueueResource::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  session_closed_ = true;
  WakeReadyLocked();  // Every waiter: each one's condition starts with session_closed_.
}

}  // namespace mts
