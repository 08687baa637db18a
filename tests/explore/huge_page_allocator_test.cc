// The visited set's allocator (explore/huge_page_allocator.h): a table of 2 MiB or more sits on
// 2 MiB boundaries, where the kernel can back it with huge pages; smaller ones are plain; a swiss
// table built on it keeps what it is given through its growths.
#include <doctest/doctest.h>

#include <cstdint>
#include <functional>

#include <absl/container/flat_hash_set.h>

#include "explore/huge_page_allocator.h"

namespace rjsim::explore {
namespace huge_page_allocator_test {
namespace {

bool on_huge_page_boundary(const void* memory) { return reinterpret_cast<std::uintptr_t>(memory) % kHugePage == 0; }

TEST_CASE("an allocation of 2 MiB or more starts on a 2 MiB boundary; a smaller one is aligned for its type") {
  HugePageAllocator<std::uint64_t> allocator;
  const std::size_t large = kHugePage / sizeof(std::uint64_t) + 3;   // just over 2 MiB: rounded up to 4
  std::uint64_t* table = allocator.allocate(large);
  CHECK(on_huge_page_boundary(table));
  table[0] = 1;
  table[large - 1] = 2;   // the whole of it is usable
  CHECK(table[0] + table[large - 1] == 3);
  allocator.deallocate(table, large);

  std::uint64_t* small = allocator.allocate(16);
  CHECK(reinterpret_cast<std::uintptr_t>(small) % alignof(std::uint64_t) == 0);
  allocator.deallocate(small, 16);
}

TEST_CASE("a swiss table on the allocator keeps every key through its growths past 2 MiB") {
  absl::flat_hash_set<std::uint64_t, std::hash<std::uint64_t>, std::equal_to<std::uint64_t>,
                      HugePageAllocator<std::uint64_t>>
      set;
  constexpr std::uint64_t kKeys = 400'000;   // 8-byte slots and control bytes: past 2 MiB
  std::uint64_t inserted = 0;
  for (std::uint64_t key = 1; key <= kKeys; ++key) inserted += set.insert(key * 0x9E3779B97F4A7C15ULL).second ? 1 : 0;
  CHECK(inserted == kKeys);
  std::uint64_t found = 0;
  for (std::uint64_t key = 1; key <= kKeys; ++key) found += set.contains(key * 0x9E3779B97F4A7C15ULL) ? 1 : 0;
  CHECK(found == kKeys);
  CHECK_FALSE(set.insert(0x9E3779B97F4A7C15ULL).second);   // already there
}

}  // namespace
}  // namespace huge_page_allocator_test
}  // namespace rjsim::explore
