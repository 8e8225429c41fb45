// The shuffle-buffer exercise of chapter 04: RandomShuffleBuffer's Enqueue(), Dequeue() and
// Close(), so that shuffle_buffer_test passes (the constructor and size() are given). The
// parts to write lie between the `[mts:lab shuffle_buffer]` markers; the comment outside
// them says what to decide.
#include <string>
#include <utility>

#include "chapters/04_coordinated/exercises/shuffle_buffer/shuffle_buffer.h"
#include "src/platform/errors.h"

namespace mts {

RandomShuffleBuffer::RandomShuffleBuffer(size_t capacity, size_t min_after_dequeue, uint64_t seed)
    : capacity_(capacity), min_after_dequeue_(min_after_dequeue), random_(seed) {
  if (min_after_dequeue >= capacity) {
    throw ValueError("RandomShuffleBuffer: min_after_dequeue (" +
                     std::to_string(min_after_dequeue) + ") must be less than capacity (" +
                     std::to_string(capacity) + ")");
  }
}

size_t RandomShuffleBuffer::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return elements_.size();
}

// [mts:exercise-todo]
// TODO(student): the contract of each method is in the header; every wait goes through
// WaitLocked (with the right condition variable and count of blocked callers), so that the
// tests can see who is blocked. The decisions are yours: what each waiter waits *for*, so
// that a spurious or stale wake-up does no harm; whom to wake after each change, knowing
// that a woken dequeuer may find the condition false again and go back to sleep; what a
// close does to callers already waiting on either side; and how to remove a random element
// without moving the others.
void RandomShuffleBuffer::Enqueue(Element element) {
  // [mts:lab shuffle_buffer]
  std::unique_lock<std::mutex> lock(mu_);
  WaitLocked(lock, not_full_, blocked_enqueuers_,
             [&] { return closed_ || elements_.size() < capacity_; });
  if (closed_) throw CancelledError("RandomShuffleBuffer is closed");
  elements_.push_back(element);
  // notify_all, not notify_one: a woken dequeuer may still find too few elements and wait
  // again, and then the one that could have gone would sleep through this element.
  enough_.notify_all();
  // [mts:lab-end]
}

RandomShuffleBuffer::Element RandomShuffleBuffer::Dequeue() {
  // [mts:lab shuffle_buffer]
  std::unique_lock<std::mutex> lock(mu_);
  WaitLocked(lock, enough_, blocked_dequeuers_,
             [&] { return closed_ || elements_.size() > min_after_dequeue_; });
  if (elements_.empty()) {
    throw OutOfRangeError("RandomShuffleBuffer is closed and has no elements left");
  }
  std::uniform_int_distribution<size_t> pick(0, elements_.size() - 1);
  std::swap(elements_[pick(random_)], elements_.back());
  const Element element = elements_.back();
  elements_.pop_back();
  not_full_.notify_all();
  return element;
  // [mts:lab-end]
}

void RandomShuffleBuffer::Close() {
  // [mts:lab shuffle_buffer]
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
  not_full_.notify_all();
  enough_.notify_all();
  // [mts:lab-end]
}
// [mts:exercise-todo-end]

}  // namespace mts
