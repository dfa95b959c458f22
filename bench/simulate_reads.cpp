// seqfuse-simulate-reads GENOME.fa[.gz] READS LENGTH SUBST_RATE SEED > reads.fq
// seqfuse-simulate-reads --trim-pairs ...: pairs for fastq-trim
// (simulate_trim_pairs.cpp).
// Short reads for benchmarks: READS reads of LENGTH bases drawn uniformly
// from the genome's records (either strand), each base replaced by another
// one with probability SUBST_RATE, quality 'I' throughout. The same
// arguments give the same file byte for byte (std::mt19937_64, fixed draws),
// so a benchmark input can be rebuilt on the GPU machine from a 1.4 MB seed
// instead of being carried. Windows holding a letter other than A/C/G/T are
// drawn again.
#include <htslib/hts_log.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "gpu/primitives/base_code.hpp"
#include "io/sequence_reader.hpp"

namespace {

std::string reverse_complement(const std::string& s) {
  std::string out(s.rbegin(), s.rend());
  for (char& c : out) c = "TGCA"[seqfuse::base_code(static_cast<unsigned char>(c))];
  return out;
}

bool all_acgt(const std::string& s) {
  for (char c : s)
    if (seqfuse::base_code(static_cast<unsigned char>(c)) > 3) return false;
  return true;
}

int run(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr,
                 "usage: seqfuse-simulate-reads GENOME.fa READS LENGTH SUBST_RATE SEED > out.fq\n");
    return 2;
  }
  const std::size_t reads = std::stoull(argv[2]);
  const std::size_t length = std::stoull(argv[3]);
  const double rate = std::stod(argv[4]);
  std::mt19937_64 rng(std::stoull(argv[5]));

  std::string genome;  // records joined; windows may not cross a join
  std::vector<std::size_t> starts;
  seqfuse::io::SequenceReader reader(argv[1]);
  seqfuse::io::SequenceRecord record;
  while (reader.next(record)) {
    if (record.seq.size() < length) continue;
    starts.push_back(genome.size());
    genome += record.seq;
  }
  if (starts.empty()) throw seqfuse::Error("no record in the genome is as long as a read");
  starts.push_back(genome.size());
  for (char& c : genome) c = "ACGTN"[seqfuse::base_code(static_cast<unsigned char>(c))];

  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_int_distribution<int> other_base(1, 3);
  std::uniform_int_distribution<std::size_t> any_position(0, genome.size() - 1);
  const std::string quality(length, 'I');
  std::string out;
  for (std::size_t r = 0; r < reads; ++r) {
    std::string read;
    do {
      const std::size_t p = any_position(rng);
      const auto next = std::upper_bound(starts.begin(), starts.end(), p);
      if (p + length > *next) continue;  // would cross into the next record
      read = genome.substr(p, length);
    } while (read.size() != length || !all_acgt(read));
    if (unit(rng) < 0.5) read = reverse_complement(read);
    for (char& c : read)
      if (unit(rng) < rate)
        c = "ACGT"[(seqfuse::base_code(static_cast<unsigned char>(c)) + other_base(rng)) % 4];
    out += "@sim" + std::to_string(r) + "\n" + read + "\n+\n" + quality + "\n";
    if (out.size() > (std::size_t{1} << 24)) {
      std::fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace

int simulate_trim_pairs(int argc, char** argv);  // simulate_trim_pairs.cpp

int main(int argc, char** argv) {
  hts_set_log_level(HTS_LOG_OFF);
  try {
    if (argc > 1 && std::string(argv[1]) == "--trim-pairs") return simulate_trim_pairs(argc, argv);
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "seqfuse-simulate-reads: error: %s\n", e.what());
    return 1;
  }
}
