// allocator.h: freed buffers come back for the next request of their size, the cache is
// bounded, and a session's steady-state runs take nothing new from the system.
#include "src/01_session/allocator.h"

#include <cstdint>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/session.h"
#include "src/01_session/tensor.h"

namespace mts {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kCaches = false;  // AddressSanitizer builds cache nothing (allocator.h).
#else
constexpr bool kCaches = true;
#endif

TEST(AllocatorTest, BuffersAreAlignedTo64Bytes) {
  Allocator allocator;
  for (std::size_t bytes : {1, 63, 64, 100, 4096}) {
    void* p = allocator.AllocateRaw(bytes);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % Allocator::kAlignment, 0u) << bytes;
    allocator.DeallocateRaw(p, bytes);
  }
}

TEST(AllocatorTest, AFreedBufferIsReusedForTheSameRoundedSize) {
  if (!kCaches) GTEST_SKIP() << "no cache under AddressSanitizer";
  Allocator allocator;
  void* a = allocator.AllocateRaw(1000);
  allocator.DeallocateRaw(a, 1000);
  EXPECT_EQ(allocator.GetStats().cached_bytes, 1024u);
  // 1000 and 1010 bytes both round up to 1024: the same bin.
  void* b = allocator.AllocateRaw(1010);
  EXPECT_EQ(a, b);
  EXPECT_EQ(allocator.GetStats().reuses, 1);
  EXPECT_EQ(allocator.GetStats().system_allocations, 1);
  EXPECT_EQ(allocator.GetStats().cached_bytes, 0u);
  // Another size is not served from that bin.
  void* c = allocator.AllocateRaw(2000);
  EXPECT_NE(b, c);
  EXPECT_EQ(allocator.GetStats().system_allocations, 2);
  allocator.DeallocateRaw(b, 1010);
  allocator.DeallocateRaw(c, 2000);
}

TEST(AllocatorTest, TheCacheKeepsAtMostItsLimit) {
  Allocator allocator;
  const std::size_t big = Allocator::kMaxCachedBytes / 2 + 64;
  void* a = allocator.AllocateRaw(big);
  void* b = allocator.AllocateRaw(big);
  allocator.DeallocateRaw(a, big);
  allocator.DeallocateRaw(b, big);  // Would exceed the limit: goes back to the system.
  EXPECT_LE(allocator.GetStats().cached_bytes, Allocator::kMaxCachedBytes);
  EXPECT_EQ(allocator.GetStats().cached_bytes, kCaches ? big : 0);
  allocator.ClearCache();
  EXPECT_EQ(allocator.GetStats().cached_bytes, 0u);
}

TEST(AllocatorTest, ThreadsAllocateAndFreeConcurrently) {
  Allocator allocator;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&allocator, t] {
      for (int i = 0; i < 1000; ++i) {
        const std::size_t bytes = 64 * (1 + (i + t) % 5);
        auto* p = static_cast<int*>(allocator.AllocateRaw(bytes));
        *p = i;  // The buffer is this thread's alone until it gives it back.
        allocator.DeallocateRaw(p, bytes);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  const Allocator::Stats stats = allocator.GetStats();
  EXPECT_EQ(stats.system_allocations + stats.reuses, 4000);
  if (kCaches) {
    EXPECT_LE(stats.system_allocations, 4 * 5);
  }
}

TEST(AllocatorTest, ATensorOfADeadTensorsSizeTakesItsBuffer) {
  if (!kCaches) GTEST_SKIP() << "no cache under AddressSanitizer";
  const void* first;
  {
    Tensor t(DataType::kFloat, TensorShape{37, 3});
    first = t.data<float>();
  }
  Tensor u(DataType::kFloat, TensorShape{3, 37});
  EXPECT_EQ(u.data<float>(), first);
}

TEST(AllocatorTest, ASessionsSteadyStateRunsAllocateNoNewBuffers) {
  if (!kCaches) GTEST_SKIP() << "no cache under AddressSanitizer";
  Graph graph;
  DefaultGraphScope as_default(graph);
  Output x = Placeholder(DataType::kFloat, TensorShape{4, 5}, "x");
  // Two casts: each makes a new buffer in every run.
  const std::vector<Output> y = {Cast(Cast(x, DataType::kDouble), DataType::kFloat)};
  Session session(&graph);
  const FeedDict feeds = {{x, Tensor::Zeros(DataType::kFloat, TensorShape{4, 5})}};
  session.Run(y, feeds);  // Plans the signature, takes its first buffers.
  session.Run(y, feeds);
  const int64_t before = Allocator::Default()->GetStats().system_allocations;
  for (int i = 0; i < 10; ++i) {
    std::vector<Tensor> result = session.Run(y, feeds);
    ASSERT_EQ(result[0].num_elements(), 20);
  }
  EXPECT_EQ(Allocator::Default()->GetStats().system_allocations, before);
}

}  // namespace
}  // namespace mts
