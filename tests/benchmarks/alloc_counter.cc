#include "tests/benchmarks/alloc_counter.h"

#include <errno.h>
#include <stddef.h>

#include <atomic>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || \
    defined(MTS_THREAD_SANITIZER)
#define MTS_ALLOC_COUNTER_OFF 1
#endif

namespace mts {
namespace bench {
namespace {
// Relaxed: a count, ordered with nothing. Constant-initialised, so it works before main().
std::atomic<int64_t> allocations{0};
}  // namespace

#ifdef MTS_ALLOC_COUNTER_OFF
int64_t HeapAllocations() { return -1; }
#else
int64_t HeapAllocations() { return allocations.load(std::memory_order_relaxed); }
void CountAllocation() { allocations.fetch_add(1, std::memory_order_relaxed); }
#endif

}  // namespace bench
}  // namespace mts

#ifndef MTS_ALLOC_COUNTER_OFF
// glibc's allocator under its own names; defining malloc here makes every caller (the C++
// runtime's operator new included) come through these wrappers first.
extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t n, size_t size);
void* __libc_realloc(void* p, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
void __libc_free(void* p);

void* malloc(size_t size) {
  mts::bench::CountAllocation();
  return __libc_malloc(size);
}
void* calloc(size_t n, size_t size) {
  mts::bench::CountAllocation();
  return __libc_calloc(n, size);
}
void* realloc(void* p, size_t size) {
  mts::bench::CountAllocation();
  return __libc_realloc(p, size);
}
void free(void* p) { __libc_free(p); }
void* memalign(size_t alignment, size_t size) {
  mts::bench::CountAllocation();
  return __libc_memalign(alignment, size);
}
void* aligned_alloc(size_t alignment, size_t size) {
  mts::bench::CountAllocation();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, size_t alignment, size_t size) {
  mts::bench::CountAllocation();
  void* p = __libc_memalign(alignment, size);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}
}  // extern "C"
#endif
