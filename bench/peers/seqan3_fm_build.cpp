// seqan3-fm-build: the SeqAn 3 peer for `seqfuse bwt` timings (issue #16).
//
// Measures SeqAn 3.2's FM-index construction on the text bwa indexes:
//   read_s   reading every record of REF.fa[.gz] with seqan3::sequence_file_input,
//            converting to dna4 and concatenating the records into one text (with
//            --both-strands the reverse complement of the whole text appended, as
//            bwa and seqfuse do); SeqAn's dna4 maps N to A and each IUPAC code to
//            one of its bases (R W M D H V to A, Y S B to C, K to G), where bwa and
//            seqfuse draw a pseudo-random base.
//   build_s  constructing seqan3::fm_index over that one text (text_layout::single:
//            sdsl-lite 3's csa_wt through construct_im, libdivsufsort inside, one
//            thread), or seqan3::bi_fm_index with --bi (two FM-indexes: forward and
//            reversed text, about twice the work).
// Then it counts a fixed 12-mer with seqan3::search, so the index is used.
// Prints one line on stdout:
//   bases=<N> suffixes=<N> read_s=<s> build_s=<s> index=<fm|bi> kmer=<12-mer> count=<N>
// bases: forward-strand bases read; suffixes: the index's size (text plus the
// sentinel), 2 * bases + 1 with --both-strands, like bwa's rows.
// Build: scripts/build-seqan3-driver.sh.

#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iterator>
#include <ranges>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <seqan3/alphabet/nucleotide/dna4.hpp>
#include <seqan3/io/sequence_file/input.hpp>
#include <seqan3/search/fm_index/bi_fm_index.hpp>
#include <seqan3/search/fm_index/fm_index.hpp>
#include <seqan3/search/search.hpp>

namespace {

using clock_type = std::chrono::steady_clock;
using namespace seqan3::literals;
constexpr char usage[] = "usage: seqan3-fm-build REF.fa[.gz] [--both-strands] [--bi]\n";

// Read as dna4 directly; the legal alphabet (dna15, the default) accepts N and IUPAC codes.
struct dna4_traits : seqan3::sequence_file_input_default_traits_dna {
  using sequence_alphabet = seqan3::dna4;
};

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

// Builds the index over `text`, counts `kmer` in it and prints the result line.
template <typename index_t>
void build_and_report(std::vector<seqan3::dna4> const& text, size_t bases, double read_s,
                      char const* kind) {
  auto const t0 = clock_type::now();
  index_t index{text};
  double const build_s = seconds_since(t0);

  auto const kmer = "ACGTTGCAGGCT"_dna4;
  auto results = seqan3::search(kmer, index);
  size_t const count = std::ranges::distance(results.begin(), results.end());

  std::printf(
      "bases=%zu suffixes=%zu read_s=%.3f build_s=%.3f index=%s kmer=ACGTTGCAGGCT count=%zu\n",
      bases, static_cast<size_t>(index.size()), read_s, build_s, kind, count);
}

int run(int argc, char** argv) {
  std::filesystem::path input;
  bool both_strands = false, bi = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view const arg{argv[i]};
    if (arg == "--both-strands") {
      both_strands = true;
    } else if (arg == "--bi") {
      bi = true;
    } else if (arg == "-h" || arg == "--help" || (!arg.empty() && arg[0] == '-') ||
               !input.empty()) {
      std::fputs(usage, stderr);
      return arg == "-h" || arg == "--help" ? 0 : 2;
    } else {
      input = arg;
    }
  }
  if (input.empty()) {
    std::fputs(usage, stderr);
    return 2;
  }

  auto const t0 = clock_type::now();
  std::vector<seqan3::dna4> text;
  seqan3::sequence_file_input<dna4_traits, seqan3::fields<seqan3::field::seq>> fin{input};
  for (auto& record : fin) std::ranges::copy(record.sequence(), std::back_inserter(text));
  size_t const bases = text.size();
  if (bases == 0) throw std::runtime_error("no bases in " + input.string());
  if (both_strands) {
    text.reserve(2 * bases);
    for (size_t i = bases; i-- > 0;) text.push_back(seqan3::complement(text[i]));
  }
  double const read_s = seconds_since(t0);

  if (bi) {
    build_and_report<seqan3::bi_fm_index<seqan3::dna4, seqan3::text_layout::single>>(text, bases,
                                                                                     read_s, "bi");
  } else {
    build_and_report<seqan3::fm_index<seqan3::dna4, seqan3::text_layout::single>>(text, bases,
                                                                                  read_s, "fm");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (std::exception const& e) {
    std::fprintf(stderr, "seqan3-fm-build: error: %s\n", e.what());
    return 1;
  }
}
