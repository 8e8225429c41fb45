// allocator.h: where a Tensor's buffer comes from, and where it goes when the last handle
// drops: a cache of freed buffers by size, so a training step at steady state allocates
// nothing.
//
//   Session   <-- every op output is a Tensor, and every Tensor's buffer comes from here
//
// Freed buffers are kept in bins of their exact (64-byte rounded) size, never split or
// merged, up to kMaxCachedBytes; beyond that they go back to the system. Under
// AddressSanitizer nothing is cached, so a read of a dead tensor's buffer is still reported.
//
// Thread safety: every method may be called from any thread.
//
// TensorFlow: tensorflow::Allocator and BFCAllocator (tensorflow/core/framework/allocator.h,
// tensorflow/core/common_runtime/bfc_allocator.h).
#ifndef MTS_SRC_01_SESSION_ALLOCATOR_H_
#define MTS_SRC_01_SESSION_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace mts {

/// A caching allocator of 64-byte aligned buffers.
class Allocator {
 public:
  /// The alignment of every buffer (the Eigen maps of tensor_types.h, `TTypes<T>`, promise 64).
  static constexpr std::size_t kAlignment = 64;
  /// The most bytes of freed buffers the cache keeps for reuse.
  static constexpr std::size_t kMaxCachedBytes = std::size_t{256} << 20;

  /// Counts, for tests and benchmarks.
  struct Stats {
    int64_t system_allocations = 0;  ///< Buffers that came from the system allocator.
    int64_t reuses = 0;              ///< Buffers handed out again from the cache.
    std::size_t cached_bytes = 0;    ///< Bytes of freed buffers held now.
  };

  /// The process's allocator of tensor buffers (never destroyed, so a Tensor in a static
  /// object can still give its buffer back at exit).
  static Allocator* Default();

  Allocator() = default;
  Allocator(const Allocator&) = delete;
  Allocator& operator=(const Allocator&) = delete;
  /// Returns every cached buffer to the system.
  ~Allocator();

  /// A buffer of at least `bytes` bytes, 64-byte aligned: a cached one of the same rounded
  /// size if there is one, else a new one. \throws std::bad_alloc when out of memory.
  void* AllocateRaw(std::size_t bytes);
  /// Gives back `ptr`, which AllocateRaw(`bytes`) returned; the cache keeps it if it has room.
  void DeallocateRaw(void* ptr, std::size_t bytes);
  /// Returns every cached buffer to the system.
  void ClearCache();
  /// The counts so far.
  Stats GetStats() const;

 private:
  mutable std::mutex mu_;
  // Guarded by mu_: freed buffers by rounded size, their total size, the counts.
  std::unordered_map<std::size_t, std::vector<void*>> free_;
  Stats stats_;
};

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_ALLOCATOR_H_
