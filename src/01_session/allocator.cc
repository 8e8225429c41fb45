#include "src/01_session/allocator.h"

#include <new>

namespace mts {

namespace {

constexpr std::align_val_t kAlign{Allocator::kAlignment};

// Buffers are binned by their size rounded up to the alignment, so a step whose sizes
// differ by a few bytes still reuses them.
std::size_t RoundUp(std::size_t bytes) {
  return (bytes + Allocator::kAlignment - 1) & ~(Allocator::kAlignment - 1);
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kCache = false;  // Let AddressSanitizer see every use after free.
#else
constexpr bool kCache = true;
#endif

}  // namespace

Allocator* Allocator::Default() {
  static Allocator* allocator = new Allocator();
  return allocator;
}

Allocator::~Allocator() { ClearCache(); }

void* Allocator::AllocateRaw(std::size_t bytes) {
  const std::size_t size = RoundUp(bytes);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_.find(size);
    if (it != free_.end() && !it->second.empty()) {
      void* ptr = it->second.back();
      it->second.pop_back();
      stats_.cached_bytes -= size;
      ++stats_.reuses;
      return ptr;
    }
    ++stats_.system_allocations;
  }
  return ::operator new(size, kAlign);
}

void Allocator::DeallocateRaw(void* ptr, std::size_t bytes) {
  const std::size_t size = RoundUp(bytes);
  if (kCache) {
    std::lock_guard<std::mutex> lock(mu_);
    if (stats_.cached_bytes + size <= kMaxCachedBytes) {
      free_[size].push_back(ptr);
      stats_.cached_bytes += size;
      return;
    }
  }
  ::operator delete(ptr, kAlign);
}

void Allocator::ClearCache() {
  std::unordered_map<std::size_t, std::vector<void*>> cached;
  {
    std::lock_guard<std::mutex> lock(mu_);
    cached.swap(free_);
    stats_.cached_bytes = 0;
  }
  for (auto& [size, buffers] : cached) {
    for (void* ptr : buffers) ::operator delete(ptr, kAlign);
  }
}

Allocator::Stats Allocator::GetStats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

}  // namespace mts
