// What setting fastq-trim's duplication bits costs (src/preprocess/report/
// duplication.hpp): 4 M random single-bit atomic sets into a fresh 512 MiB
// anonymous array on one thread, with 4 KiB or 2 MiB pages (MADV_HUGEPAGE),
// the array mapped up front (MADV_POPULATE_WRITE) or faulted in by the sets,
// and each word prefetched 16 sets ahead or not. Prints one line a variant,
// with the AnonHugePages the kernel granted.
//   g++ -O3 -std=c++20 scripts/probe-duplication-bits.cpp -o /tmp/probe && /tmp/probe
#include <sys/mman.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

long anon_huge_kib() {
  FILE* f = std::fopen("/proc/self/smaps_rollup", "r");
  if (f == nullptr) return -1;
  char line[256];
  long kib = 0;
  while (std::fgets(line, sizeof line, f) != nullptr)
    if (std::sscanf(line, "AnonHugePages: %ld", &kib) == 1) break;
  std::fclose(f);
  return kib;
}
}  // namespace

int main() {
  const std::size_t bytes = std::size_t{1} << 29, sets = 4000000;
  std::mt19937_64 rng(1);
  std::vector<std::uint64_t> sums(sets);
  for (std::uint64_t& s : sums) s = rng();
  for (const int huge : {0, 1})
    for (const int populate : {0, 1})
      for (const int prefetch : {0, 1}) {
        void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return 1;
        if (huge) madvise(p, bytes, MADV_HUGEPAGE);
        auto t0 = std::chrono::steady_clock::now();
        if (populate) madvise(p, bytes, MADV_POPULATE_WRITE);
        const double populated = seconds_since(t0);
        auto* words = static_cast<std::uint64_t*>(p);
        const std::uint64_t mask = bytes * 8 - 1;
        std::uint64_t duplicates = 0;
        t0 = std::chrono::steady_clock::now();
        for (std::size_t i = 0; i < sets; ++i) {
          if (prefetch && i + 16 < sets) __builtin_prefetch(&words[(sums[i + 16] & mask) >> 6], 1);
          const std::uint64_t bit = sums[i] & mask, m = std::uint64_t{1} << (bit & 63);
          std::atomic_ref<std::uint64_t> word(words[bit >> 6]);
          duplicates += (word.fetch_or(m, std::memory_order_relaxed) & m) != 0 ? 1 : 0;
        }
        std::printf("%s pages, populated %s (%.3f s), prefetch %s: sets %.3f s; AnonHugePages %ld kB; %llu set twice\n",
                    huge ? "2 MiB" : "4 KiB", populate ? "yes" : "no", populated,
                    prefetch ? "yes" : "no", seconds_since(t0), anon_huge_kib(),
                    static_cast<unsigned long long>(duplicates));
        munmap(p, bytes);
      }
}
