// The host code around fastq-trim's GPU engine that every build compiles:
// which plans the GPU engine refuses, the pipeline parameters built from a
// plan, and ReadStats::add_counts (how the device statistics join the
// report) against ReadStats::add.
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "preprocess/gpu_engine.hpp"
#include "preprocess/pipeline_params.hpp"
#include "preprocess/report/read_stats.hpp"

namespace pp = seqfuse::preprocess;

TEST_CASE("the GPU fastq-trim engine refuses the host-only options by name", "[preprocess]") {
  pp::TrimPlan plan;
  CHECK(pp::gpu_trim_refusal(plan).empty());
  plan.settings.correction = true;
  plan.settings.poly_x = true;
  plan.fasta_adapters = {"ACGTACGT"};
  plan.interleaved_output = true;
  CHECK(pp::gpu_trim_refusal(plan).empty());
  plan.dedup = true;
  plan.write_failed = true;
  const std::string why = pp::gpu_trim_refusal(plan);
  CHECK(why == "the GPU fastq-trim engine does not do -D/--dedup, --failed_out");
  pp::TrimPlan umi;
  umi.settings.umi = pp::UmiLocation::read1;
  CHECK(pp::gpu_trim_refusal(umi).find("-U/--umi") != std::string::npos);
  pp::TrimPlan other;
  other.write_overlapped = true;
  other.index_blacklist2 = {"ACGT"};
  CHECK(pp::gpu_trim_refusal(other) ==
        "the GPU fastq-trim engine does not do --filter_by_index, --overlapped_out");
  CHECK_FALSE(pp::gpu_trim_refusal(pp::TrimPlan{}).size() > 0);
}

TEST_CASE("pipeline parameters carry the plan's adapters and settings", "[preprocess]") {
  pp::TrimPlan plan;
  plan.adapter1 = "AGATCGGAAGAGC";
  plan.fasta_adapters = {"AAAA", "CCCCCC", "GG"};
  plan.settings.front[1] = 4;
  plan.settings.max_len[0] = 90;
  plan.settings.overlap_diff_limit = 7;
  const pp::HostPipeline host(plan);
  const auto& p = host.params;
  CHECK(std::string(p.adapter[0], static_cast<std::size_t>(p.adapter_length[0])) == plan.adapter1);
  CHECK(p.adapter_length[1] == 0);
  CHECK(host.fasta_bases == "AAAACCCCCCGG");
  CHECK(host.fasta_offsets == std::vector<int>{0, 4, 10, 12});
  CHECK(p.fasta_count == 3);
  CHECK(p.fasta_match_required == 4);
  CHECK(p.front[1] == 4);
  CHECK(p.max_len[0] == 90);
  CHECK(p.limits.diff_limit == 7);
  CHECK(p.unknown_insert == 512);
}

TEST_CASE("statistics added as raw counts equal those added read by read", "[preprocess]") {
  std::mt19937 rng(20261125);
  const auto uniform = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  constexpr std::size_t kCycles = 320;
  std::vector<std::uint64_t> letters(kCycles * 8 * 4, 0), kmers(pp::kStatsKmers, 0);
  std::uint64_t reads = 0, length_sum = 0;
  pp::ReadStats direct(100, true);
  for (int r = 0; r < 500; ++r) {
    const int length = uniform(0, 9) == 0 ? uniform(0, 2) : uniform(3, 300);
    std::string seq, qual;
    for (int i = 0; i < length; ++i) {
      seq += "ACGTNacgtX"[uniform(0, uniform(0, 3) == 0 ? 9 : 3)];
      qual += static_cast<char>(33 + uniform(0, 41));
    }
    direct.add(seq, qual);
    // What the device keeps (gpu/preprocess/trim_chunk.hpp's layout).
    ++reads;
    length_sum += static_cast<std::uint64_t>(length);
    unsigned kmer = 0;
    int run = 0;
    for (int i = 0; i < length; ++i) {
      const int q = static_cast<signed char>(qual[static_cast<std::size_t>(i)]);
      std::uint64_t* at =
          &letters[(static_cast<std::size_t>(i) * 8 +
                    (static_cast<unsigned char>(seq[static_cast<std::size_t>(i)]) & 7)) *
                   4];
      ++at[0];
      if (q >= '5') ++at[1];
      if (q >= '?') ++at[2];
      at[3] += static_cast<std::uint64_t>(static_cast<std::int64_t>(q - 33));
      const int code = pp::fastp_base_code(seq[static_cast<std::size_t>(i)]);
      if (code < 0) {
        run = 0;
        continue;
      }
      kmer = ((kmer << 2) | static_cast<unsigned>(code)) & (pp::kStatsKmers - 1);
      if (++run >= 5) ++kmers[kmer];
    }
  }
  pp::ReadStats raw(100, true);
  raw.add_counts(reads, length_sum, kCycles, letters.data(), kmers.data());
  CHECK(raw.reads() == direct.reads());
  CHECK(raw.bases() == direct.bases());
  CHECK(raw.q20_bases() == direct.q20_bases());
  CHECK(raw.q30_bases() == direct.q30_bases());
  CHECK(raw.cycles() == direct.cycles());
  CHECK(raw.mean_length() == direct.mean_length());
  CHECK(raw.mean_quality_curve() == direct.mean_quality_curve());
  for (char base : {'A', 'C', 'G', 'T', 'N'}) {
    CHECK(raw.quality_curve(base) == direct.quality_curve(base));
    CHECK(raw.content_curve(base) == direct.content_curve(base));
  }
  CHECK(raw.kmer_counts() == direct.kmer_counts());
  // Added to an instance that already holds reads, as finish() does.
  pp::ReadStats twice = direct;
  twice.add_counts(reads, length_sum, kCycles, letters.data(), kmers.data());
  pp::ReadStats merged = direct;
  merged.merge(direct);
  CHECK(twice.mean_quality_curve() == merged.mean_quality_curve());
  CHECK(twice.bases() == merged.bases());
}
