// Starter for the shuffle-buffer exercise.
#include "chapters/04_coordinated/exercises/shuffle_buffer/shuffle_buffer.h"

#include <string>

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

// [mts:exercise-todo]
void RandomShuffleBuffer::Enqueue(Element element) {
  // TODO: wait (WaitLocked on not_full_, counted in blocked_enqueuers_) until there is room
  // or the buffer is closed; throw CancelledError if closed; add the element; wake a
  // dequeuer.
}

RandomShuffleBuffer::Element RandomShuffleBuffer::Dequeue() {
  // TODO: wait (WaitLocked on enough_, counted in blocked_dequeuers_) until more than
  // min_after_dequeue_ elements are held or the buffer is closed; throw OutOfRangeError if
  // it is closed and empty; otherwise remove an element picked with random_ (swap it with
  // the last one, then pop the last: no need to keep any order); wake an enqueuer.
  throw UnimplementedError("RandomShuffleBuffer::Dequeue is not written yet");
}

void RandomShuffleBuffer::Close() {
  // TODO: mark the buffer closed and wake everyone who waits.
}
// [mts:exercise-todo-end]

}  // namespace mts
