// fastq-trim's shared per-read arithmetic (gpu/preprocess/) against small
// hand-made cases (fastp 0.23.2's own examples among them) and against the
// plain scalar reference (test_preprocess_reference.hpp) on random reads:
// lengths 0, 1 and long, N runs, poly tails, adapters, every option mix.
#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "gpu/preprocess/overlap.hpp"
#include "gpu/preprocess/read_filter.hpp"
#include "gpu/preprocess/read_trim.hpp"
#include "test_preprocess_reference.hpp"

namespace kernel = seqfuse::gpu::preprocess;
namespace ref = seqfuse::preprocess::reference;

namespace {

const std::string kAdapter = "AGATCGGAAGAGCACACGTCTGAACTCCAGTCA";

std::string kept_seq(const std::string& seq, const kernel::KeptPart& k) {
  return seq.substr(static_cast<std::size_t>(k.begin), static_cast<std::size_t>(k.length));
}

// Random reads with the features the trimmer looks for.
struct ReadMaker {
  std::mt19937 rng{20261125};
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

  ref::Read make() {
    const int length = uniform(0, 9) == 0 ? uniform(0, 3) : uniform(4, 300);
    ref::Read r;
    for (int i = 0; i < length; ++i) r.seq += "ACGT"[uniform(0, 3)];
    const int feature = uniform(0, 5);
    if (feature == 1 && length > 10) {  // adapter read into
      const int at = uniform(0, length - 1);
      r.seq.replace(static_cast<std::size_t>(at), std::string::npos,
                    kAdapter.substr(0, static_cast<std::size_t>(std::min<int>(length - at, 33))));
      r.seq.resize(static_cast<std::size_t>(length), 'G');
    } else if (feature == 2 && length > 0) {  // a poly tail, with errors
      const char base = "ACGTG"[uniform(0, 4)];
      for (int i = uniform(0, length - 1); i < length; ++i)
        r.seq[static_cast<std::size_t>(i)] = uniform(0, 12) == 0 ? "ACGTN"[uniform(0, 4)] : base;
    } else if (feature == 3 && length > 0) {  // an N run
      const int at = uniform(0, length - 1);
      for (int i = at; i < std::min(length, at + uniform(1, 10)); ++i)
        r.seq[static_cast<std::size_t>(i)] = 'N';
    }
    const int style = uniform(0, 3);
    for (int i = 0; i < length; ++i) {
      int q = style == 0 ? uniform(2, 41) : style == 1 ? uniform(25, 41) : uniform(2, 20);
      if (style == 3) q = i < length / 2 ? uniform(20, 41) : uniform(2, 25);
      r.qual += static_cast<char>(33 + q);
    }
    return r;
  }
};

}  // namespace

TEST_CASE("quality cutting matches fastp's examples", "[preprocess]") {
  // fastp's Filter::test: windows of 4 at Q20 from both ends, one tail base.
  const std::string seq = "TTTTAACCCCCCCCCCCCCCCCCCCCCCCCCCCCAATTTT";
  const std::string qual = "/////CCCCCCCCCCCC////CCCCCCCCCCCCCC////E";
  kernel::QualityCut cut;
  cut.front = cut.tail = true;
  kernel::KeptPart kept;
  REQUIRE(kernel::trim_and_cut(seq.data(), qual.data(), 40, 0, 1, cut, &kept));
  CHECK(kept_seq(seq, kept) == "CCCCCCCCCCCCCCCCCCCCCCCCCCCC");
  CHECK(kept_seq(qual, kept) == "CCCCCCCCCCC////CCCCCCCCCCCCC");
  // No cutting: only -f/-t; too much trimmed: dropped.
  kernel::QualityCut none;
  REQUIRE(kernel::trim_and_cut(seq.data(), qual.data(), 40, 3, 2, none, &kept));
  CHECK(kept.begin == 3);
  CHECK(kept.length == 35);
  CHECK(kept.front_trimmed == 3);
  CHECK_FALSE(kernel::trim_and_cut(seq.data(), qual.data(), 4, 3, 2, none, &kept));
}

TEST_CASE("poly-X, poly-G and adapter trimming match fastp's examples", "[preprocess]") {
  // fastp's PolyX::test.
  const std::string polya = "ATTTTAAAAAAAAAATAAAAAAAAAAAAACAAAAAAAAAAAAAAAAAAAAAAAAAT";
  const kernel::PolyXCut x = kernel::poly_x_cut(polya.data(), static_cast<int>(polya.size()), 10);
  CHECK(polya.substr(0, static_cast<std::size_t>(x.length)) == "ATTTT");
  CHECK(x.base == 0);
  CHECK(x.trimmed == 51);
  // A poly-G tail with one error, and none at all.
  const std::string polyg = "ACGTACGTACGTAAAAGGGGGGGGGGGCGGGGGGG";
  CHECK(kernel::poly_g_trimmed_length(polyg.data(), static_cast<int>(polyg.size()), 10) == 16);
  const std::string plain = "ACGTACGTACGTACGTACGT";
  CHECK(kernel::poly_g_trimmed_length(plain.data(), 20, 10) == 20);
  // fastp's AdapterTrimmer::test.
  const std::string read = "TTTTAACCCCCCCCCCCCCCCCCCCCCCCCCCCCAATTTTAAAATTTTCCCCGGGG";
  const std::string adapter = "TTTTCCACGGGGATACTACTG";
  int pos = 0;
  REQUIRE(kernel::find_adapter(read.data(), static_cast<int>(read.size()), adapter.data(),
                               static_cast<int>(adapter.size()), 4, &pos));
  CHECK(read.substr(0, static_cast<std::size_t>(pos)) ==
        "TTTTAACCCCCCCCCCCCCCCCCCCCCCCCCCCCAATTTTAAAA");
  // An adapter dimer missing its first base: found before the read starts.
  const std::string dimer = kAdapter.substr(1) + "AAAA";
  REQUIRE(kernel::find_adapter(dimer.data(), static_cast<int>(dimer.size()), kAdapter.data(),
                               static_cast<int>(kAdapter.size()), 4, &pos));
  CHECK(pos == -1);
  CHECK(kernel::fasta_adapter_match_required(16) == 4);
  CHECK(kernel::fasta_adapter_match_required(17) == 5);
  CHECK(kernel::fasta_adapter_match_required(257) == 6);
}

TEST_CASE("overlap analysis and base correction match fastp's examples", "[preprocess]") {
  // fastp's OverlapAnalysis::test.
  const std::string r1 =
      "CAGCGCCTACGGGCCCCTTTTTCTGCGCGACCGCGTGGCTGTGGGCGCGGATGCCTTTGAGCGCGGTGACTTCTCACTGCGTATCGAGC";
  const std::string r2 =
      "ACCTCCAGCGGCTCGATACGCAGTGAGAAGTCACCGCGCTCAAAGGCATCCGCGCCCACAGCCACGCGGTCGCGCAGAAAAAGGGGTCC";
  const kernel::OverlapLimits limits{2, 30, 20};
  const std::string rc2 = ref::reverse_complement(r2);
  const kernel::Overlap ov = kernel::analyze_overlap(
      r1.data(), static_cast<int>(r1.size()), rc2.data(), static_cast<int>(rc2.size()), limits);
  CHECK(ov.overlapped);
  CHECK(ov.offset == 10);
  CHECK(ov.length == 79);
  CHECK(ov.diff == 1);
  // fastp's BaseCorrector::test.
  std::string s1 = "TTTTAACCCCCCCCCCCCCCCCCCCCCCCCCCCCAATTTTAAAATTTTCCACGGGG";
  std::string s2 = "AAAAAAAAAACCCCGGGGAAAATTTTAAAATTGGGGGGGGGGTGGGGGGGGGGGGG";
  std::string q1 = "EEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE/EEEEE";
  std::string q2 = "EEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE/EEEEEEEEEEEEE";
  std::string rc(56, 'N');
  kernel::reverse_complement(s2.data(), 56, rc.data());
  CHECK(rc == ref::reverse_complement(s2));
  const kernel::Overlap ov2 = kernel::analyze_overlap(s1.data(), 56, rc.data(), 56, {5, 30, 20});
  std::array<std::uint64_t, 64> matrix{};
  const kernel::Correction c = kernel::correct_overlap(s1.data(), q1.data(), 56, s2.data(),
                                                       q2.data(), 56, ov2, matrix.data());
  CHECK(c.corrected == 2);
  CHECK(c.read1);
  CHECK(c.read2);
  CHECK(s1 == "TTTTAACCCCCCCCCCCCCCCCCCCCCCCCCCCCAATTTTAAAATTTTCCCCGGGG");
  CHECK(s2 == "AAAAAAAAAACCCCGGGGAAAATTTTAAAATTGGGGGGGGGGGGGGGGGGGGGGGG");
  CHECK(q1 == std::string(56, 'E'));
  CHECK(q2 == std::string(56, 'E'));
}

TEST_CASE("filters: quality, N, length and complexity edges", "[preprocess]") {
  kernel::ReadFilter f;
  const std::string seq = "ACGTNACGTN";
  CHECK(kernel::read_fate(seq.data(), "IIIIIIIIII", 10, true, f) == kernel::kFateTooShort);
  CHECK(kernel::read_fate(seq.data(), "IIIIIIIIII", 10, false, f) == kernel::kFateTooShort);
  CHECK(kernel::read_fate(seq.data(), "IIIIIIIIII", 0, true, f) == kernel::kFateTooShort);
  f.length_required = 10;
  CHECK(kernel::read_fate(seq.data(), "IIIIIIIIII", 10, true, f) == kernel::kFatePassed);
  // 4 of 10 unqualified is 40%: allowed; 5 is not.
  CHECK(kernel::read_fate(seq.data(), "####IIIIII", 10, true, f) == kernel::kFatePassed);
  CHECK(kernel::read_fate(seq.data(), "#####IIIII", 10, true, f) == kernel::kFateLowQuality);
  f.n_base_limit = 1;
  CHECK(kernel::read_fate(seq.data(), "IIIIIIIIII", 10, true, f) == kernel::kFateTooManyN);
  f.length_limit = 9;
  f.n_base_limit = 5;
  CHECK(kernel::read_fate(seq.data(), "IIIIIIIIII", 10, true, f) == kernel::kFateTooLong);
  // 3 changes over 9 neighbours is 33%: passes 30, not 34.
  const std::string low = "AAACCCGGGT";
  CHECK(kernel::passes_complexity(low.data(), 10, 30));
  CHECK_FALSE(kernel::passes_complexity(low.data(), 10, 34));
  CHECK_FALSE(kernel::passes_complexity(low.data(), 1, 0));
}

TEST_CASE("shared trimming agrees with the scalar reference on random reads", "[preprocess]") {
  ReadMaker maker;
  for (int round = 0; round < 4000; ++round) {
    const ref::Read original = maker.make();
    const int n = static_cast<int>(original.seq.size());
    // Quality cutting with random settings.
    ref::Cut rc;
    rc.front = maker.uniform(0, 1) == 1;
    rc.tail = maker.uniform(0, 1) == 1;
    rc.right = maker.uniform(0, 3) == 1;
    rc.wf = maker.uniform(1, 10);
    rc.wt = maker.uniform(1, 10);
    rc.wr = maker.uniform(1, 10);
    rc.qf = maker.uniform(1, 30);
    rc.qt = maker.uniform(1, 30);
    rc.qr = maker.uniform(1, 30);
    const int front = maker.uniform(0, 3) == 0 ? maker.uniform(0, 30) : 0;
    const int tail = maker.uniform(0, 3) == 0 ? maker.uniform(0, 30) : 0;
    kernel::QualityCut kc;
    kc.front = rc.front;
    kc.tail = rc.tail;
    kc.right = rc.right;
    kc.front_window = rc.wf;
    kc.tail_window = rc.wt;
    kc.right_window = rc.wr;
    kc.front_quality = rc.qf;
    kc.tail_quality = rc.qt;
    kc.right_quality = rc.qr;
    ref::Read expected = original;
    int expected_front = 0;
    const bool kept_ref = ref::trim_and_cut(expected, front, tail, rc, expected_front);
    kernel::KeptPart kept;
    const bool kept_kernel =
        kernel::trim_and_cut(original.seq.data(), original.qual.data(), n, front, tail, kc, &kept);
    INFO("read " << original.seq << " qual " << original.qual << " front " << front << " tail "
                 << tail);
    REQUIRE(kept_ref == kept_kernel);
    if (kept_ref) {
      REQUIRE(kept_seq(original.seq, kept) == expected.seq);
      REQUIRE(kept_seq(original.qual, kept) == expected.qual);
      REQUIRE(kept.front_trimmed == expected_front);
    }

    // Poly-G and poly-X on the original read.
    const int min_len = maker.uniform(1, 15);
    ref::Read g = original;
    ref::poly_g(g, min_len);
    REQUIRE(kernel::poly_g_trimmed_length(original.seq.data(), n, min_len) ==
            static_cast<int>(g.seq.size()));
    ref::Read x = original;
    int trimmed = 0;
    const int base = ref::poly_x(x, min_len, trimmed);
    const kernel::PolyXCut xc = kernel::poly_x_cut(original.seq.data(), n, min_len);
    REQUIRE(xc.base == base);
    REQUIRE(xc.length == static_cast<int>(x.seq.size()));
    if (base >= 0) REQUIRE(xc.trimmed == trimmed);

    // Adapters of several lengths (the start offset depends on it).
    const std::string adapter = kAdapter.substr(0, static_cast<std::size_t>(maker.uniform(4, 33)));
    const int match_req = maker.uniform(4, 6);
    ref::Read a = original;
    std::string cut_off;
    const bool found_ref = ref::adapter(a, adapter, match_req, cut_off);
    int pos = 0;
    const bool found = kernel::find_adapter(original.seq.data(), n, adapter.data(),
                                            static_cast<int>(adapter.size()), match_req, &pos);
    REQUIRE(found == found_ref);
    if (found) REQUIRE(std::max(pos, 0) == static_cast<int>(a.seq.size()));

    // Filters with random settings, on the read as trimming left it.
    kernel::ReadFilter f;
    f.quality = maker.uniform(0, 4) != 0;
    f.length = maker.uniform(0, 4) != 0;
    f.qualified_quality = static_cast<char>(33 + maker.uniform(0, 40));
    f.unqualified_percent = maker.uniform(0, 100);
    f.average_quality = maker.uniform(0, 2) == 0 ? maker.uniform(1, 40) : 0;
    f.n_base_limit = maker.uniform(0, 10);
    f.length_required = maker.uniform(0, 100);
    f.length_limit = maker.uniform(0, 1) ? maker.uniform(1, 300) : 0;
    f.complexity = maker.uniform(0, 1) == 1;
    f.complexity_percent = maker.uniform(0, 100);
    const ref::Read* r = kept_ref ? &expected : nullptr;
    const int expected_fate = ref::fate(
        r, f.quality, f.qualified_quality, f.unqualified_percent, f.average_quality, f.n_base_limit,
        f.length, f.length_required, f.length_limit, f.complexity, f.complexity_percent);
    const int fate =
        kernel::read_fate(original.seq.data() + kept.begin, original.qual.data() + kept.begin,
                          kept_kernel ? kept.length : 0, kept_kernel, f);
    REQUIRE(fate == expected_fate);
  }
}

TEST_CASE("overlap analysis agrees with the scalar reference on random pairs", "[preprocess]") {
  ReadMaker maker;
  for (int round = 0; round < 6000; ++round) {
    // A fragment read from both ends, with errors, sometimes unrelated reads.
    const int insert = maker.uniform(1, 300);
    std::string fragment;
    for (int i = 0; i < insert; ++i) fragment += "ACGT"[maker.uniform(0, 3)];
    const int length = maker.uniform(0, 9) == 0 ? maker.uniform(0, 40) : maker.uniform(40, 160);
    std::string r1 =
        (fragment + kAdapter + std::string(200, 'G')).substr(0, static_cast<std::size_t>(length));
    std::string r2 =
        (ref::reverse_complement(fragment) + "AGATCGGAAGAGCGTCGTGTAGG" + std::string(200, 'G'))
            .substr(0, static_cast<std::size_t>(maker.uniform(0, 4) == 0 ? maker.uniform(0, 160)
                                                                         : length));
    for (std::string* s : {&r1, &r2})
      for (char& c : *s)
        if (maker.uniform(0, 40) == 0) c = "ACGTN"[maker.uniform(0, 4)];
    if (maker.uniform(0, 5) == 0) std::shuffle(r2.begin(), r2.end(), maker.rng);
    const int diff_limit = maker.uniform(0, 8), require = maker.uniform(0, 40),
              percent = maker.uniform(0, 100);
    const ref::Overlap expected = ref::overlap(r1, r2, diff_limit, require, percent / 100.0);
    const std::string rc2 = ref::reverse_complement(r2);
    const kernel::Overlap got =
        kernel::analyze_overlap(r1.data(), static_cast<int>(r1.size()), rc2.data(),
                                static_cast<int>(rc2.size()), {diff_limit, require, percent});
    INFO(r1 << " " << r2 << " " << diff_limit << " " << require << " " << percent);
    REQUIRE(got.overlapped == expected.overlapped);
    REQUIRE(got.offset == expected.offset);
    REQUIRE(got.length == expected.length);
    REQUIRE(got.diff == expected.diff);
  }
}

TEST_CASE("mismatch counting eight bytes at a time", "[preprocess]") {
  ReadMaker maker;
  for (int round = 0; round < 2000; ++round) {
    const int n = maker.uniform(0, 70);
    std::string a, b;
    for (int i = 0; i < n; ++i) {
      a += static_cast<char>(maker.uniform(0, 255));
      b += maker.uniform(0, 3) == 0 ? static_cast<char>(maker.uniform(0, 255)) : a.back();
    }
    int expected = 0;
    for (int i = 0; i < n; ++i)
      expected += a[static_cast<std::size_t>(i)] != b[static_cast<std::size_t>(i)];
    REQUIRE(kernel::count_mismatches(a.data(), b.data(), n, n) == expected);
    const int stop = maker.uniform(0, 10);
    const int early = kernel::count_mismatches(a.data(), b.data(), n, stop);
    REQUIRE((early > stop) == (expected > stop));
    if (expected <= stop) REQUIRE(early == expected);
  }
}
