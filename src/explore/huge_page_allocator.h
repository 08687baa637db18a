// An allocator for one large table probed at random (the exhaustive search's visited set): an
// allocation of at least 2 MiB is aligned to 2 MiB and asks the kernel for transparent huge pages
// for it (madvise MADV_HUGEPAGE; Debian's default THP mode honours exactly that request). With
// 4 KiB pages a probe into hundreds of MB misses the TLB as well as the cache; with 2 MiB pages
// the whole table's translations fit the TLB. Only this table: asking for huge pages for every
// allocation (jemalloc's thp:always) made the search's snapshots, which come and go, hold whole
// huge pages, and took a 60 s search of all-faults-1-1 from 1.1 to 1.7-2.1 GB
// (docs/performance.md, 2026-12-07 evening). Smaller allocations are plain ones. Where the
// kernel has THP off, or the advice fails, the memory is used with its pages as they are.
#pragma once

#include <cstddef>
#include <new>

#include <sys/mman.h>

namespace rjsim::explore {

inline constexpr std::size_t kHugePage = std::size_t{2} << 20;

template <class T>
class HugePageAllocator {
 public:
  using value_type = T;

  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}   // NOLINT: rebinding, as std::allocator

  T* allocate(std::size_t count) {
    const std::size_t bytes = count * sizeof(T);
    if (bytes < kHugePage) return static_cast<T*>(::operator new(bytes, std::align_val_t{alignof(T)}));
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* memory = ::operator new(rounded, std::align_val_t{kHugePage});
    static_cast<void>(madvise(memory, rounded, MADV_HUGEPAGE));   // advice: refused, pages stay small
    return static_cast<T*>(memory);
  }

  void deallocate(T* memory, std::size_t count) noexcept {
    const bool huge = count * sizeof(T) >= kHugePage;
    ::operator delete(memory, std::align_val_t{huge ? kHugePage : alignof(T)});
  }

  template <class U>
  friend bool operator==(const HugePageAllocator&, const HugePageAllocator<U>&) noexcept {
    return true;   // stateless: any one frees what another allocated
  }
};

}  // namespace rjsim::explore
