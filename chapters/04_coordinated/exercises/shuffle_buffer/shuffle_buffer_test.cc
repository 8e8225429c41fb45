// Tests of the shuffle-buffer exercise. Threads that may block run in the background and
// are waited for with a deadline, so a wrong implementation fails a test instead of hanging
// it; nothing sleeps.
#include "chapters/04_coordinated/exercises/shuffle_buffer/shuffle_buffer.h"

#include <algorithm>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <numeric>
#include <set>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "src/platform/errors.h"

namespace mts {
namespace {

using Element = RandomShuffleBuffer::Element;

// Long enough for any machine, sanitizers included; only a failing test waits this long.
constexpr std::chrono::milliseconds kDeadline{5000};

// Runs `body` on its own thread. Finished() waits, up to the deadline, for it to end. A body
// that never ends is left behind (detached) rather than hanging the test; it owns what it
// uses through shared_ptr captures.
class Background {
 public:
  explicit Background(std::function<void()> body) {
    std::packaged_task<void()> task(std::move(body));
    done_ = task.get_future();
    std::thread(std::move(task)).detach();
  }
  // True if the body ended before the deadline. Its exception, if any, is rethrown by Get().
  bool Finished() { return done_.wait_for(kDeadline) == std::future_status::ready; }
  void Get() { done_.get(); }

 private:
  std::future<void> done_;
};

std::vector<Element> DrainAll(RandomShuffleBuffer& buffer) {
  std::vector<Element> got;
  try {
    while (true) got.push_back(buffer.Dequeue());
  } catch (const OutOfRangeError&) {
  }
  return got;
}

std::vector<Element> ShuffleOf100(uint64_t seed) {
  RandomShuffleBuffer buffer(100, 0, seed);
  for (Element i = 0; i < 100; ++i) buffer.Enqueue(i);
  buffer.Close();
  return DrainAll(buffer);
}

// A minimum the buffer could never exceed is refused when the buffer is made.
TEST(RandomShuffleBufferTest, RejectsAMinimumNotBelowTheCapacity) {
  EXPECT_THROW(RandomShuffleBuffer(0, 0, 1), ValueError);
  EXPECT_THROW(RandomShuffleBuffer(4, 4, 1), ValueError);
  EXPECT_NO_THROW(RandomShuffleBuffer(4, 3, 1));
}

// Every element comes out exactly once, not in the order it went in; then OutOfRange.
TEST(RandomShuffleBufferTest, HandsOutEveryElementOnceInShuffledOrder) {
  std::vector<Element> got = ShuffleOf100(7);
  std::vector<Element> in_order(100);
  std::iota(in_order.begin(), in_order.end(), 0);
  EXPECT_NE(got, in_order);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, in_order);
}

// The seed decides the order: the same seed gives the same order, another seed another.
TEST(RandomShuffleBufferTest, TheSeedDecidesTheOrder) {
  EXPECT_EQ(ShuffleOf100(42), ShuffleOf100(42));
  EXPECT_NE(ShuffleOf100(42), ShuffleOf100(43));
}

// A Dequeue waits while the buffer holds only min_after_dequeue elements, and goes as soon
// as one more arrives, leaving the minimum behind.
TEST(RandomShuffleBufferTest, DequeueWaitsForMoreThanTheMinimum) {
  auto buffer = std::make_shared<RandomShuffleBuffer>(/*capacity=*/4, /*min=*/2, /*seed=*/1);
  buffer->Enqueue(10);
  buffer->Enqueue(11);
  Background consumer([buffer] { buffer->Dequeue(); });
  ASSERT_TRUE(buffer->WaitForBlocked(0, 1, kDeadline)) << "Dequeue did not wait";
  EXPECT_EQ(buffer->size(), 2u);
  buffer->Enqueue(12);
  ASSERT_TRUE(consumer.Finished());
  consumer.Get();
  EXPECT_EQ(buffer->size(), 2u);
}

// An Enqueue waits while the buffer is full, and goes as soon as a Dequeue makes room.
TEST(RandomShuffleBufferTest, EnqueueWaitsWhileFull) {
  auto buffer = std::make_shared<RandomShuffleBuffer>(/*capacity=*/2, /*min=*/0, /*seed=*/1);
  buffer->Enqueue(1);
  buffer->Enqueue(2);
  Background producer([buffer] { buffer->Enqueue(3); });
  ASSERT_TRUE(buffer->WaitForBlocked(1, 0, kDeadline)) << "Enqueue did not wait";
  buffer->Dequeue();
  ASSERT_TRUE(producer.Finished());
  producer.Get();
  EXPECT_EQ(buffer->size(), 2u);
}

// Closing wakes a waiting Dequeue; the minimum no longer applies, so the buffer drains to
// empty, and only then does Dequeue fail with OutOfRange.
TEST(RandomShuffleBufferTest, CloseDrainsBelowTheMinimumThenOutOfRange) {
  auto buffer = std::make_shared<RandomShuffleBuffer>(/*capacity=*/10, /*min=*/5, /*seed=*/1);
  for (Element i = 0; i < 3; ++i) buffer->Enqueue(i);
  auto first = std::make_shared<Element>(-1);
  Background consumer([buffer, first] { *first = buffer->Dequeue(); });
  ASSERT_TRUE(buffer->WaitForBlocked(0, 1, kDeadline)) << "Dequeue did not wait";
  buffer->Close();
  ASSERT_TRUE(consumer.Finished()) << "Close did not wake the waiting Dequeue";
  consumer.Get();
  std::vector<Element> got = DrainAll(*buffer);
  got.push_back(*first);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<Element>{0, 1, 2}));
  EXPECT_THROW(buffer->Dequeue(), OutOfRangeError);
}

// Closing fails an Enqueue waiting for room, and every later Enqueue; nothing is added.
TEST(RandomShuffleBufferTest, CloseFailsWaitingAndLaterEnqueues) {
  auto buffer = std::make_shared<RandomShuffleBuffer>(/*capacity=*/1, /*min=*/0, /*seed=*/1);
  buffer->Enqueue(1);
  Background producer([buffer] { buffer->Enqueue(2); });
  ASSERT_TRUE(buffer->WaitForBlocked(1, 0, kDeadline)) << "Enqueue did not wait";
  buffer->Close();
  ASSERT_TRUE(producer.Finished()) << "Close did not wake the waiting Enqueue";
  EXPECT_THROW(producer.Get(), CancelledError);
  EXPECT_THROW(buffer->Enqueue(3), CancelledError);
  EXPECT_EQ(buffer->size(), 1u);
  buffer->Close();  // Twice is harmless.
  EXPECT_EQ(DrainAll(*buffer), (std::vector<Element>{1}));
}

// Four producers and four consumers through a small buffer: every element arrives once.
TEST(RandomShuffleBufferTest, ManyProducersAndConsumersLoseNothing) {
  auto buffer = std::make_shared<RandomShuffleBuffer>(/*capacity=*/8, /*min=*/3, /*seed=*/5);
  constexpr int kThreads = 4;
  constexpr Element kEach = 250;
  std::vector<std::unique_ptr<Background>> producers;
  std::vector<std::unique_ptr<Background>> consumers;
  auto seen = std::make_shared<std::vector<std::vector<Element>>>(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    producers.push_back(std::make_unique<Background>([buffer, t] {
      for (Element i = 0; i < kEach; ++i) buffer->Enqueue(t * kEach + i);
    }));
    consumers.push_back(std::make_unique<Background>(
        [buffer, seen, t] { (*seen)[t] = DrainAll(*buffer); }));
  }
  for (auto& producer : producers) {
    ASSERT_TRUE(producer->Finished());
    producer->Get();
  }
  buffer->Close();
  std::multiset<Element> all;
  for (auto& consumer : consumers) {
    ASSERT_TRUE(consumer->Finished());
    consumer->Get();
  }
  for (const auto& got : *seen) all.insert(got.begin(), got.end());
  ASSERT_EQ(all.size(), static_cast<size_t>(kThreads * kEach));
  Element expected = 0;
  for (Element value : all) EXPECT_EQ(value, expected++);
}

}  // namespace
}  // namespace mts
