// Helpers for the k-mer tests: random reads with the cases Jellyfish treats
// specially, and a whole count (engine -> run store -> merge) as a map from
// k-mer letters to count, comparable with kmer::reference_counts.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "io/batch.hpp"
#include "kmer/cpu_engine.hpp"
#include "kmer/kmer_text.hpp"
#include "kmer/reference.hpp"
#include "kmer/run_merge.hpp"
#include "kmer/run_store.hpp"
#include "test_data.hpp"

namespace seqfuse::kmer::test {

using seqfuse::test::test_seed;

// Reads of length 0 to max_length: random bases in both cases, runs of N and
// other IUPAC letters, homopolymers, tandem repeats and reverse-complement
// palindromes (a k-mer equal to its own reverse complement).
inline std::vector<std::string> random_reads(std::mt19937_64& rng, std::size_t count,
                                             std::size_t max_length) {
  const auto uniform = [&](std::size_t low, std::size_t high) {
    return std::uniform_int_distribution<std::size_t>(low, high)(rng);
  };
  const std::string bases = "ACGT";
  std::vector<std::string> reads;
  for (std::size_t r = 0; r < count; ++r) {
    std::string read;
    const std::size_t length = uniform(0, max_length);
    while (read.size() < length) {
      switch (uniform(0, 9)) {
        case 0:  // N run or another non-ACGT letter
          read.append(uniform(1, 4), "NnRYx"[uniform(0, 4)]);
          break;
        case 1:  // homopolymer
          read.append(uniform(2, 80), bases[uniform(0, 3)]);
          break;
        case 2: {  // palindrome: a half and its reverse complement
          std::string half;
          for (std::size_t i = uniform(1, 20); i > 0; --i) half += bases[uniform(0, 3)];
          read += half + reference_reverse_complement(half);
          break;
        }
        case 3: {  // tandem repeat
          const std::string unit = read.substr(read.size() - std::min<std::size_t>(read.size(), 5));
          for (std::size_t i = uniform(1, 6); i > 0 && !unit.empty(); --i) read += unit;
          break;
        }
        default:
          for (std::size_t i = uniform(1, 30); i > 0; --i) {
            const char c = bases[uniform(0, 3)];
            read += uniform(0, 5) == 0 ? static_cast<char>(c | 0x20) : c;  // lowercase too
          }
      }
    }
    read.resize(length);
    reads.push_back(read);
  }
  return reads;
}

inline io::SequenceBatch make_batch(const std::vector<std::string>& reads, std::size_t begin = 0,
                                    std::size_t end = SIZE_MAX) {
  io::SequenceBatch batch;
  for (std::size_t i = begin; i < std::min(end, reads.size()); ++i)
    batch.push_back("r" + std::to_string(i), "", reads[i]);
  return batch;
}

using LetterCounts = std::map<std::string, std::uint64_t>;

inline LetterCounts to_letters(const RecordBlock& block) {
  LetterCounts counts;
  std::string letters(static_cast<std::size_t>(block.k), ' ');
  for (std::size_t i = 0; i < block.size; ++i) {
    format_kmer(block.kmer(i), block.k, letters.data());
    counts.emplace(letters, block.counts[i]);
  }
  return counts;
}

// Merged output of a store as letters; also checks the stream is ascending.
// merge_runs handing each part, copied, to `consume` on the calling thread,
// in key order; `workers` (if given) gets each prepare() call's worker id.
inline MergeTotals merge_blocks(const RunStore& store, const MergeOptions& options,
                                const std::function<void(const RecordBlock&)>& consume,
                                std::vector<unsigned>* workers = nullptr) {
  struct Copied : PartConsumer::Prepared {
    int k = 0;
    std::vector<std::uint64_t> words;
    std::vector<std::uint32_t> counts;
  };
  struct Blocks : PartConsumer {
    const std::function<void(const RecordBlock&)>& consume;
    std::vector<unsigned>* workers;
    std::mutex mutex;
    Blocks(const std::function<void(const RecordBlock&)>& c, std::vector<unsigned>* w)
        : consume(c), workers(w) {}
    std::unique_ptr<Prepared> prepare(unsigned worker, const RecordBlock& part) override {
      if (workers != nullptr) {
        const std::lock_guard lock(mutex);
        workers->push_back(worker);
      }
      auto copied = std::make_unique<Copied>();
      copied->k = part.k;
      copied->words.assign(part.words, part.words + part.size * part.words_per_kmer());
      copied->counts.assign(part.counts, part.counts + part.size);
      return copied;
    }
    void deliver(std::unique_ptr<Prepared> part) override {
      const auto& copied = static_cast<const Copied&>(*part);
      consume(
          RecordBlock{copied.k, copied.words.data(), copied.counts.data(), copied.counts.size()});
    }
  } blocks(consume, workers);
  return merge_runs(store, options, blocks);
}

inline MergeTotals merge_blocks(const RunStore& store, std::size_t read_buffer_bytes,
                                const std::function<void(const RecordBlock&)>& consume) {
  MergeOptions options;
  options.read_buffer_bytes = read_buffer_bytes;
  return merge_blocks(store, options, consume);
}

inline LetterCounts merged_letters(const RunStore& store, MergeTotals* totals = nullptr,
                                   std::size_t read_buffer_bytes = 4096) {
  LetterCounts all;
  std::string previous;
  bool ascending = true;
  const MergeTotals got = merge_blocks(store, read_buffer_bytes, [&](const RecordBlock& block) {
    for (const auto& [letters, count] : to_letters(block)) {
      if (!previous.empty() && !(previous < letters)) ascending = false;
      previous = letters;
      all.emplace(letters, count);
    }
  });
  if (!ascending) all.emplace("(merge output was not ascending)", 0);
  if (totals != nullptr) *totals = got;
  return all;
}

struct EngineSetup {
  int k = 21;
  bool canonical = true;
  unsigned threads = 2;
  std::size_t engine_budget = std::size_t{64} << 20;
  std::size_t store_cap = std::size_t{64} << 20;  // 0: every run spills
  std::size_t reads_per_batch = 1000;
};

// Counts `reads` with the CPU engine in batches; returns the merged counts.
inline LetterCounts count_on_cpu(const std::vector<std::string>& reads, const EngineSetup& setup,
                                 std::size_t* runs = nullptr, std::size_t* spilled = nullptr) {
  RunStore store(setup.k, setup.store_cap, std::filesystem::temp_directory_path().string());
  EngineParams params;
  params.k = setup.k;
  params.canonical = setup.canonical;
  params.threads = setup.threads;
  params.memory_budget = setup.engine_budget;
  const auto engine = make_cpu_engine(params, store);
  for (std::size_t begin = 0; begin < reads.size(); begin += setup.reads_per_batch)
    engine->add(make_batch(reads, begin, begin + setup.reads_per_batch));
  engine->finish();
  if (runs != nullptr) *runs = store.run_count();
  if (spilled != nullptr) *spilled = store.spilled_runs().size();
  return merged_letters(store);
}

}  // namespace seqfuse::kmer::test
