// shuffle_buffer.h: chapter 04's exercise: a bounded buffer that hands out its elements in
// random order, the idea behind TensorFlow's RandomShuffleQueue, without the graph ops.
//
//   CoordinatedSession   its input threads fill buffers like this one
//     ...
//   RandomShuffleBuffer  <-- this exercise: producers Enqueue, the training loop Dequeues
//
// Training on examples in file order teaches a model the order of the files. A shuffle
// buffer mixes them: producers add elements, and each Dequeue removes one chosen at random
// from everything held. The mix is only as good as the choice is wide, so a Dequeue waits
// until the buffer holds *more than* `min_after_dequeue` elements: after it returns, at
// least that many are left to choose from next time. At the end of the input the producers
// Close() the buffer, and from then on the minimum no longer applies: dequeues drain what is
// left, then fail with OutOfRangeError, as a closed FIFOQueue does.
//
// Lifecycle:
//   1. Construct with a capacity, the minimum and a seed (same seed, same calls: same order).
//   2. Producers Enqueue (waiting while full); consumers Dequeue (waiting for the minimum).
//   3. Close(): enqueues fail from now on, waiting ones too; dequeues drain, then fail.
//
// Thread safety: every method may be called from any thread.
//
// Example:
//   RandomShuffleBuffer buffer(/*capacity=*/100, /*min_after_dequeue=*/20, /*seed=*/7);
//   std::thread producer([&] { for (int64_t i = 0; i < 1000; ++i) buffer.Enqueue(i);
//                              buffer.Close(); });
//   try { while (true) Train(buffer.Dequeue()); } catch (const OutOfRangeError&) {}
//   producer.join();
//
// TensorFlow: tf.RandomShuffleQueue (tensorflow/core/kernels/random_shuffle_queue_op.cc),
// and tf.train.shuffle_batch, which builds one with a QueueRunner in front.
#ifndef MTS_CHAPTERS_04_COORDINATED_EXERCISES_SHUFFLE_BUFFER_SHUFFLE_BUFFER_H_
#define MTS_CHAPTERS_04_COORDINATED_EXERCISES_SHUFFLE_BUFFER_SHUFFLE_BUFFER_H_

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <random>
#include <vector>

namespace mts {

// [mts:shuffle-buffer-api]
/// A bounded buffer whose Dequeue returns a random element once enough are held.
class RandomShuffleBuffer {
 public:
  /// One element; a real pipeline would hold tensors, an int64 keeps the exercise small.
  using Element = int64_t;

  /// An empty, open buffer of at most `capacity` elements; Dequeue waits for more than
  /// `min_after_dequeue`. Random choices come from a generator seeded with `seed`.
  /// \throws ValueError unless min_after_dequeue < capacity (otherwise a full buffer could
  ///   never satisfy a Dequeue).
  RandomShuffleBuffer(size_t capacity, size_t min_after_dequeue, uint64_t seed);

  /// Adds `element`, waiting while the buffer is full.
  /// \throws CancelledError if the buffer is closed, or is closed while this waits; the
  ///   element is not added.
  void Enqueue(Element element);

  /// Removes and returns an element chosen uniformly at random from those held, waiting
  /// until more than min_after_dequeue are held, or until the buffer is closed (then any
  /// number will do).
  /// \throws OutOfRangeError if the buffer is closed and empty; nothing changes.
  Element Dequeue();

  /// Closes the buffer: wakes every waiting caller; later and waiting enqueues fail;
  /// dequeues drain what is held, ignoring the minimum. Closing twice is harmless.
  void Close();

  /// How many elements are held.
  size_t size() const;

  /// For tests, the seam that replaces sleeping: waits until at least `enqueuers` callers
  /// are blocked in Enqueue and `dequeuers` in Dequeue. \returns false if that has not
  /// happened within `timeout` (a broken implementation must fail a test, not hang it).
  bool WaitForBlocked(int enqueuers, int dequeuers, std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    return blocked_cv_.wait_for(lock, timeout, [&] {
      return blocked_enqueuers_ >= enqueuers && blocked_dequeuers_ >= dequeuers;
    });
  }

 private:
  // Given: waits on `cv` until `ready()`, counted in `blocked` (one of the two counters
  // below) meanwhile, so that WaitForBlocked sees the caller. Use it for every wait.
  // \pre `lock` holds mu_.
  template <typename Ready>
  void WaitLocked(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                  int& blocked, Ready ready) {
    while (!ready()) {
      ++blocked;
      blocked_cv_.notify_all();
      cv.wait(lock);
      --blocked;
    }
  }

  const size_t capacity_;
  const size_t min_after_dequeue_;

  mutable std::mutex mu_;
  std::condition_variable not_full_;   // Wakes enqueuers: room appeared, or closed.
  std::condition_variable enough_;     // Wakes dequeuers: an element arrived, or closed.
  std::condition_variable blocked_cv_; // Wakes WaitForBlocked: a caller started waiting.
  std::vector<Element> elements_;      // Guarded by mu_. In no particular order.
  std::mt19937_64 random_;             // Guarded by mu_.
  bool closed_ = false;                // Guarded by mu_.
  int blocked_enqueuers_ = 0;          // Guarded by mu_.
  int blocked_dequeuers_ = 0;          // Guarded by mu_.
};
// [mts:shuffle-buffer-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_04_COORDINATED_EXERCISES_SHUFFLE_BUFFER_SHUFFLE_BUFFER_H_
