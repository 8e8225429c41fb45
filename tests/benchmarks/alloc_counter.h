// alloc_counter.h: counts the heap allocations the process makes, for the benchmarks that
// report allocations per training step beside its time.
//
//   tests/benchmarks/train_benchmark.cc  <-- allocations per step of the spirals and MLP models
//
// Linking :alloc_counter into a binary replaces malloc, calloc, realloc and the aligned
// allocation functions with wrappers that count each call and hand it to glibc's own
// (`__libc_malloc` and friends). operator new in libstdc++ allocates through malloc, and so
// does Eigen, so one counter sees every heap allocation of every thread. Frees are not
// counted: a step that allocates nothing frees nothing either.
//
// Under a sanitizer the replacement is left out (the sanitizer's runtime owns malloc) and
// HeapAllocations() returns -1, which a benchmark reports as "not counted".
#ifndef MTS_TESTS_BENCHMARKS_ALLOC_COUNTER_H_
#define MTS_TESTS_BENCHMARKS_ALLOC_COUNTER_H_

#include <cstdint>

namespace mts {
namespace bench {

/// How many heap allocations the process has made so far, or -1 when not counted.
int64_t HeapAllocations();

}  // namespace bench
}  // namespace mts

#endif  // MTS_TESTS_BENCHMARKS_ALLOC_COUNTER_H_
