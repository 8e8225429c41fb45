// Starter for the shuffle-buffer exercise.
#include <string>

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
// TODO: the contract of each method is in the header; every wait goes through WaitLocked
// (with the right condition variable and count of blocked callers), so that the tests can
// see who is blocked. The decisions are yours: what each waiter waits *for*, so that a
// spurious or stale wake-up does no harm; whom to wake after each change, knowing that a
// woken dequeuer may find the condition false again and go back to sleep; what a close
// does to callers already waiting on either side; and how to remove a random element
// without moving the others.
void RandomShuffleBuffer::Enqueue(Element element) {}

RandomShuffleBuffer::Element RandomShuffleBuffer::Dequeue() {
  throw UnimplementedError("RandomShuffleBuffer::Dequeue is not written yet");
}

void RandomShuffleBuffer::Close() {}
// [mts:exercise-todo-end]

}  // namespace mts
