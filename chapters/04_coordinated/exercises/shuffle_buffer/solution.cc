// Reference solution of the shuffle-buffer exercise.
#include "chapters/04_coordinated/exercises/shuffle_buffer/shuffle_buffer.h"

#include <string>
#include <utility>

#include "src/platform/errors.h"

namespace mts {

RandomShuffleBuffer::RandomShuffleBuffer(size_t capacity, size_t min_after_dequeue,
                                         uint64_t seed)
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

void RandomShuffleBuffer::Enqueue(Element element) {
  std::unique_lock<std::mutex> lock(mu_);
  WaitLocked(lock, not_full_, blocked_enqueuers_,
             [&] { return closed_ || elements_.size() < capacity_; });
  if (closed_) throw CancelledError("RandomShuffleBuffer is closed");
  elements_.push_back(element);
  // notify_all, not notify_one: a woken dequeuer may still find too few elements and wait
  // again, and then the one that could have gone would sleep through this element.
  enough_.notify_all();
}

RandomShuffleBuffer::Element RandomShuffleBuffer::Dequeue() {
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
}

void RandomShuffleBuffer::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
  not_full_.notify_all();
  enough_.notify_all();
}

}  // namespace mts
