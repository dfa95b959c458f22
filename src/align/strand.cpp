#include "align/strand.hpp"

#include <algorithm>
#include <vector>

#include "align/align_job.hpp"
#include "core/error.hpp"

namespace seqfuse::align {
namespace {

// The IUPAC complement of an upper-case letter, or 0 when it has none.
char complement_letter(char c) noexcept {
  switch (c) {
    case 'A':
      return 'T';
    case 'T':
      return 'A';
    case 'U':
      return 'A';
    case 'C':
      return 'G';
    case 'G':
      return 'C';
    case 'R':
      return 'Y';
    case 'Y':
      return 'R';
    case 'K':
      return 'M';
    case 'M':
      return 'K';
    case 'B':
      return 'V';
    case 'V':
      return 'B';
    case 'D':
      return 'H';
    case 'H':
      return 'D';
    case 'S':
      return 'S';
    case 'W':
      return 'W';
    case 'N':
      return 'N';
    case 'X':
      return 'X';
    case '*':
      return '*';
    default:
      return 0;
  }
}

// The queries as the engine sees them: each one's reverse complement
// (minus), or plus and minus interleaved (both).
EncodedSequences stranded_queries(const ScoringScheme& scheme, const EncodedSequences& queries,
                                  std::span<const std::uint8_t> complement, Strand strand) {
  EncodedSequences out(scheme);
  const std::size_t copies = strand == Strand::both ? 2 : 1;
  out.reserve(queries.flat_codes().size() * copies, queries.size() * copies);
  std::vector<std::uint8_t> reversed;
  for (const Codes& query : queries.views()) {
    if (strand == Strand::both) out.append_codes(query);
    reversed.resize(query.size());
    for (std::size_t k = 0; k < query.size(); ++k)
      reversed[query.size() - 1 - k] = complement[query[k]];
    out.append_codes(reversed);
  }
  return out;
}

// Each target twice in a row: --pairs with both strands pairs query 2k and
// 2k + 1 (the two strands of query k) with target k.
EncodedSequences doubled(const ScoringScheme& scheme, const EncodedSequences& targets) {
  EncodedSequences out(scheme);
  out.reserve(targets.flat_codes().size() * 2, targets.size() * 2);
  for (const Codes& target : targets.views()) {
    out.append_codes(target);
    out.append_codes(target);
  }
  return out;
}

bool better(const AlignHit& a, const AlignHit& b) noexcept {
  return a.result.score != b.result.score ? a.result.score > b.result.score : a.target < b.target;
}

// Collects the engine's hits query by query (they come in query order) and
// hands on each original query's hits once its strands are all in.
class StrandMerger {
 public:
  StrandMerger(const AlignJob& job, Strand strand, const EmitHits& emit)
      : layout_(job.layout), top_(job.top), strand_(strand), emit_(emit) {}

  void take(std::span<const AlignHit> hits) {
    for (const AlignHit& h : hits) {
      const std::uint32_t query = strand_ == Strand::both ? h.query / 2 : h.query;
      const bool reverse = strand_ == Strand::minus || h.query % 2 == 1;
      if (query != current_) finish_query();
      current_ = query;
      // All against all runs as a search of the set against itself: the
      // record itself is left out on either strand, then each strand cut
      // to --top (one more was kept for the left-out hit).
      if (layout_ == PairLayout::all_vs_all && h.target == query) continue;
      std::vector<AlignHit>& list = reverse ? minus_ : plus_;
      if (layout_ == PairLayout::all_vs_all && top_ != 0 && list.size() == top_) continue;
      list.push_back(h);
      list.back().query = query;
      if (layout_ == PairLayout::pairs) list.back().target = query;  // (doubled targets)
      list.back().reverse = reverse;
    }
    flush();
  }

  void finish() {
    finish_query();
    flush();
  }

 private:
  void finish_query() {
    if (strand_ == Strand::minus) {
      std::move(minus_.begin(), minus_.end(), std::back_inserter(done_));
    } else if (layout_ == PairLayout::pairs) {
      // One hit per strand: the better, plus on a tie.
      if (!plus_.empty() || !minus_.empty()) {
        const bool take_minus =
            plus_.empty() || (!minus_.empty() && minus_[0].result.score > plus_[0].result.score);
        done_.push_back(std::move(take_minus ? minus_[0] : plus_[0]));
      }
    } else {
      // Per target the better strand (plus on a tie: it sorts first), then
      // the best `top` targets. Each strand's list holds its top N, and the
      // merged top N lies within them: a target ranked above another on one
      // strand ranks above it in the merge too.
      std::vector<AlignHit> all = std::move(plus_);
      std::move(minus_.begin(), minus_.end(), std::back_inserter(all));
      std::stable_sort(all.begin(), all.end(), [](const AlignHit& a, const AlignHit& b) {
        if (a.target != b.target) return a.target < b.target;
        if (a.result.score != b.result.score) return a.result.score > b.result.score;
        return !a.reverse && b.reverse;
      });
      all.erase(
          std::unique(all.begin(), all.end(),
                      [](const AlignHit& a, const AlignHit& b) { return a.target == b.target; }),
          all.end());
      std::stable_sort(all.begin(), all.end(), better);
      if (top_ != 0 && all.size() > top_) all.resize(top_);
      std::move(all.begin(), all.end(), std::back_inserter(done_));
    }
    plus_.clear();
    minus_.clear();
  }

  void flush() {
    if (!done_.empty()) emit_(done_);
    done_.clear();
  }

  PairLayout layout_;
  std::size_t top_;
  Strand strand_;
  const EmitHits& emit_;
  std::uint32_t current_ = 0;
  std::vector<AlignHit> plus_, minus_, done_;
};

}  // namespace

Strand parse_strand(std::string_view name) {
  if (name == "plus") return Strand::plus;
  if (name == "minus") return Strand::minus;
  if (name == "both") return Strand::both;
  throw UsageError("--strand must be plus, minus or both, not '" + std::string(name) + "'");
}

std::vector<std::uint8_t> complement_codes(const ScoringScheme& scheme) {
  std::vector<std::uint8_t> out(scheme.alphabet_size());
  for (std::size_t code = 0; code < out.size(); ++code) {
    const char c = complement_letter(scheme.letter(static_cast<std::uint8_t>(code)));
    const std::uint8_t complement = c == 0 ? ScoringScheme::kNotInAlphabet : scheme.code(c);
    if (complement == ScoringScheme::kNotInAlphabet) return {};
    out[code] = complement;
  }
  return out;
}

void append_reverse_complement(std::string_view sequence, std::string& out) {
  for (std::size_t k = sequence.size(); k-- > 0;) {
    const char c = sequence[k];
    const bool lower = c >= 'a' && c <= 'z';
    const char complement = complement_letter(lower ? static_cast<char>(c - 'a' + 'A') : c);
    if (complement == 0)
      out += c;
    else
      out += lower && complement >= 'A' && complement <= 'Z'
                 ? static_cast<char>(complement - 'A' + 'a')
                 : complement;
  }
}

AlignStats run_stranded(const AlignJob& job, Strand strand, const ScoringScheme& scheme,
                        const EncodedSequences& queries, const EncodedSequences& targets,
                        const EmitHits& emit) {
  if (strand == Strand::plus) return run_alignment_batched(job, scheme, queries, targets, emit);
  const std::vector<std::uint8_t> complement = complement_codes(scheme);
  if (complement.empty())
    throw UsageError("--strand: matrix " + scheme.name() + " is not a nucleotide matrix");
  const EncodedSequences stranded = stranded_queries(scheme, queries, complement, strand);
  AlignJob on = job;
  const std::size_t per_query = strand == Strand::both ? 2 : 1;
  if (job.progress)
    on.progress = [progress = job.progress, per_query](std::size_t done) {
      progress(done / per_query);
    };
  StrandMerger merger(job, strand, emit);
  const EmitHits take = [&](std::span<const AlignHit> hits) { merger.take(hits); };
  AlignStats stats;
  switch (job.layout) {
    case PairLayout::pairs:
      if (strand == Strand::both)
        stats = run_alignment_batched(on, scheme, stranded, doubled(scheme, targets), take);
      else
        stats = run_alignment_batched(on, scheme, stranded, targets, take);
      break;
    case PairLayout::search:
      stats = run_alignment_batched(on, scheme, stranded, targets, take);
      break;
    case PairLayout::all_vs_all:
      // The reverse strand of record i against record j is no pair of the
      // plus strands: a search of every strand against the whole set, the
      // record's own hits left out by the merger (one more kept for them).
      on.layout = PairLayout::search;
      on.top = job.top == 0 ? 0 : job.top + 1;
      stats = run_alignment_batched(on, scheme, stranded, queries, take);
      break;
  }
  merger.finish();
  return stats;
}

}  // namespace seqfuse::align
