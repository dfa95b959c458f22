// The CPU engine: fastp 0.23.2's per-read pipeline, read by read, with the
// arithmetic of gpu/preprocess/. The order of the steps is fastp's
// (seprocessor.cpp / peprocessor.cpp); docs/fastq-trim.md lists it.
#include <algorithm>
#include <string_view>

#include "gpu/preprocess/overlap.hpp"
#include "gpu/preprocess/read_filter.hpp"
#include "gpu/preprocess/read_trim.hpp"
#include "preprocess/engine.hpp"
#include "preprocess/umi.hpp"

namespace seqfuse::preprocess {
namespace {

namespace kernel = gpu::preprocess;

// fastp's --insert_size_max: the histogram's "unknown" bin.
constexpr int kUnknownInsert = static_cast<int>(kInsertSizeMax);

// fastp's tags for --failed_out, by result code.
std::string_view fate_tag(int fate) {
  switch (fate) {
    case 4:
      return "failed_polyx_filter";
    case 8:
      return "failed_bad_overlap";
    case 12:
      return "failed_too_many_n_bases";
    case 16:
      return "failed_too_short";
    case 17:
      return "failed_too_long";
    case 20:
      return "failed_quality_filter";
    case 24:
      return "failed_low_complexity";
    default:
      return "passed";
  }
}

// A read being trimmed: the kept part [begin, begin + length) of its record.
struct WorkRead {
  const ReadChunk* chunk = nullptr;
  const FastqRecord* record = nullptr;
  char* seq = nullptr;   // the record's bases
  char* qual = nullptr;  // the record's qualities
  bool kept = true;      // false: fastp's NULL read, dropped by trimAndCut
  int begin = 0, length = 0, front_trimmed = 0;
  // What trimAndCut starts from (after UMI trimming), and what fastp writes
  // to --failed_out when trimAndCut drops the read.
  int base_begin = 0, base_length = 0;
  // A header fastp changed (--fix_mgi_id, UMIs); empty: the record's.
  std::string renamed;

  WorkRead(ReadChunk& c, FastqRecord& r)
      : chunk(&c),
        record(&r),
        seq(c.seq_data(r)),
        qual(c.qual_data(r)),
        length(static_cast<int>(r.length)),
        base_length(static_cast<int>(r.length)) {}
  [[nodiscard]] std::string_view header() const {
    return renamed.empty() ? chunk->header(*record) : std::string_view(renamed);
  }
  [[nodiscard]] char* s() const { return seq + begin; }
  [[nodiscard]] char* q() const { return qual + begin; }
  [[nodiscard]] std::string_view seq_view() const {
    return {s(), static_cast<std::size_t>(length)};
  }
  [[nodiscard]] std::string_view qual_view() const {
    return {q(), static_cast<std::size_t>(length)};
  }
  [[nodiscard]] std::string_view original_seq() const {
    return {seq + base_begin, static_cast<std::size_t>(base_length)};
  }
  [[nodiscard]] std::string_view original_qual() const {
    return {qual + base_begin, static_cast<std::size_t>(base_length)};
  }
  // fastp's Read::trimFront: up to n bases off the front, one always left.
  void trim_front(int n) {
    n = std::min(length - 1, n);
    if (n <= 0) return;
    begin += n;
    length -= n;
    base_begin = begin;
    base_length = length;
  }
};

void append_read(std::string& out, const WorkRead& r, std::string_view tag = {}) {
  // fastp writes its read object: the trimmed one, or the original when
  // trimming dropped it (its NULL read leaves the original untouched).
  const std::string_view seq = r.kept ? r.seq_view() : r.original_seq();
  const std::string_view qual = r.kept ? r.qual_view() : r.original_qual();
  out += r.header();
  if (!tag.empty()) {
    out += ' ';
    out += tag;
  }
  out += '\n';
  out += seq;
  out += '\n';
  out += r.chunk->plus(*r.record);
  out += '\n';
  out += qual;
  out += '\n';
}

class CpuTrimEngine final : public TrimEngine {
 public:
  explicit CpuTrimEngine(const TrimPlan& plan) : plan_(plan), s_(plan.settings) {
    limits_.diff_limit = s_.overlap_diff_limit;
    limits_.length_required = s_.overlap_len_require;
    limits_.diff_percent_limit = s_.overlap_diff_percent_limit;
    fasta_match_required_ =
        kernel::fasta_adapter_match_required(static_cast<int>(plan.fasta_adapters.size()));
  }

  [[nodiscard]] std::string name() const override { return "cpu"; }

  void trim(ReadChunk& reads, ReadChunk* mates, ChunkOutput& out, TrimTally& tally) override {
    std::string scratch;  // read 2's reverse complement, reused across the chunk
    for (std::size_t i = 0; i < reads.size(); ++i) {
      if (mates == nullptr)
        trim_single(reads, reads.records[i], out, tally);
      else
        trim_pair(reads, reads.records[i], *mates, mates->records[i], out, tally, scratch);
    }
  }

 private:
  // -f/-t and the sliding windows (fastp's trimAndCut).
  void cut(WorkRead& r, int side) const {
    kernel::KeptPart part;
    r.kept =
        kernel::trim_and_cut(r.s(), r.q(), r.length, s_.front[side], s_.tail[side], s_.cut, &part);
    if (r.kept) {
      r.begin += part.begin;
      r.length = part.length;
      r.front_trimmed = part.front_trimmed;
    }
  }

  // fastp's Filter::match: a barcode within the threshold of mismatches over
  // the positions both have. fastp drops such a read (pair) before trimming
  // and counts it nowhere but in the statistics before filtering.
  [[nodiscard]] bool listed(const std::vector<std::string>& barcodes,
                            std::string_view index) const {
    for (const std::string& barcode : barcodes) {
      int diff = 0;
      for (std::size_t i = 0; i < barcode.size() && i < index.size(); ++i)
        if (barcode[i] != index[i] && ++diff > plan_.index_threshold) break;
      if (diff <= plan_.index_threshold) return true;
    }
    return false;
  }

  // --fix_mgi_id: "@name/1" becomes "@name /1", as fastp renames the read.
  static void fix_mgi(WorkRead& r) {
    const std::string_view h = r.header();
    const std::size_t n = h.size();
    if (n >= 2 && (h[n - 1] == '1' || h[n - 1] == '2') && h[n - 2] == '/')
      r.renamed = std::string(h.substr(0, n - 2)) + " " + std::string(h.substr(n - 2));
  }

  void name_umi(WorkRead& r, std::string_view umi) const {
    if (r.renamed.empty()) r.renamed = std::string(r.header());
    add_umi_to_name(r.renamed, umi, s_.umi_prefix);
  }

  // fastp's UmiProcessor::process; r2 null for single-end reads.
  void umi(WorkRead& r1, WorkRead* r2) const {
    const auto take = [&](WorkRead& r) {
      std::string taken(r.s(), static_cast<std::size_t>(std::min(r.length, s_.umi_len)));
      r.trim_front(static_cast<int>(taken.size()) + s_.umi_skip);
      return taken;
    };
    std::string found;
    switch (s_.umi) {
      case UmiLocation::index1:
        found = first_index(r1.header());
        break;
      case UmiLocation::index2:
        if (r2) found = last_index(r2->header());
        break;
      case UmiLocation::read1:
        found = take(r1);
        break;
      case UmiLocation::read2:
        if (r2) found = take(*r2);
        break;
      case UmiLocation::per_index: {
        std::string merged(first_index(r1.header()));
        if (r2) {
          merged += '_';
          merged += last_index(r2->header());
        }
        name_umi(r1, merged);
        if (r2) name_umi(*r2, merged);
        return;
      }
      case UmiLocation::per_read: {
        std::string merged = take(r1);
        if (r2) {
          merged += '_';
          merged += take(*r2);
        }
        name_umi(r1, merged);
        if (r2) name_umi(*r2, merged);
        return;
      }
      case UmiLocation::none:
        return;
    }
    if (found.empty()) return;
    name_umi(r1, found);
    if (r2) name_umi(*r2, found);
  }

  void poly_g(WorkRead& r) const {
    r.length = kernel::poly_g_trimmed_length(r.s(), r.length, s_.poly_g_min_len);
  }

  void poly_x(WorkRead& r, FilterCounts& counts) const {
    const kernel::PolyXCut cut = kernel::poly_x_cut(r.s(), r.length, s_.poly_x_min_len);
    if (cut.base < 0) return;
    r.length = cut.length;
    // FilterCounts keeps A, C, G, T; fastp's classes are A, T, C, G.
    static constexpr std::size_t kSlot[4] = {0, 3, 1, 2};
    const std::size_t slot = kSlot[cut.base];
    ++counts.polyx_reads[slot];
    counts.polyx_bases[slot] += static_cast<std::uint64_t>(cut.trimmed);
  }

  // fastp's trimBySequence with its counting (matchReq 4).
  bool adapter_by_sequence(WorkRead& r, const std::string& adapter, AdapterCounts& seen,
                           FilterCounts& counts) const {
    int pos = 0;
    if (!kernel::find_adapter(r.s(), r.length, adapter.data(), static_cast<int>(adapter.size()), 4,
                              &pos))
      return false;
    std::string cut_off = pos < 0
                              ? adapter.substr(0, adapter.size() - static_cast<std::size_t>(-pos))
                              : std::string(r.s() + pos, static_cast<std::size_t>(r.length - pos));
    r.length = std::max(pos, 0);
    if (!cut_off.empty()) {
      ++counts.adapter_trimmed_reads;
      counts.adapter_trimmed_bases += cut_off.size();
      ++seen[cut_off];
    }
    return true;
  }

  // fastp's trimByMultiSequences: every FASTA adapter in turn. fastp 0.23.2
  // measures the cut-off part after shortening the read, so it is always
  // empty and nothing is counted; the reads are trimmed all the same.
  void adapters_from_fasta(WorkRead& r) const {
    for (const std::string& adapter : plan_.fasta_adapters) {
      int pos = 0;
      if (kernel::find_adapter(r.s(), r.length, adapter.data(), static_cast<int>(adapter.size()),
                               fasta_match_required_, &pos))
        r.length = std::max(pos, 0);
    }
  }

  // fastp's --overlapped_out: an overlap without mismatches in its first 50
  // bases (the percent limit 0). fastp builds the read with the
  // std::string(str, pos) constructor, so it writes read 1 from the end of
  // the overlap on, not the overlap itself; seqfuse writes the same bytes.
  void overlapped(const WorkRead& r1, const WorkRead& r2, std::string& out) const {
    kernel::OverlapLimits exact = limits_;
    exact.diff_percent_limit = 0;
    std::string rc2(static_cast<std::size_t>(r2.length), 'N');
    kernel::reverse_complement(r2.s(), r2.length, rc2.data());
    const kernel::Overlap ov =
        kernel::analyze_overlap(r1.s(), r1.length, rc2.data(), r2.length, exact);
    if (!ov.overlapped) return;
    const int from = std::min(r1.length, std::max(ov.offset, 0) + ov.length);
    WorkRead part = r1;
    part.begin = r1.begin + from;
    part.length = r1.length - from;
    append_read(out, part);
  }

  void max_length(WorkRead& r, int side) const {
    if (s_.max_len[side] > 0 && s_.max_len[side] < r.length) r.length = s_.max_len[side];
  }

  [[nodiscard]] int fate(const WorkRead& r) const {
    return kernel::read_fate(r.s(), r.q(), r.length, r.kept, s_.filter);
  }

  void trim_single(ReadChunk& chunk, FastqRecord& record, ChunkOutput& out,
                   TrimTally& tally) const {
    WorkRead r(chunk, record);
    tally.before1.add(r.seq_view(), r.qual_view());
    ++tally.reads_in;
    tally.bases_in += record.length;
    // -D: counted under its fate, written nowhere (fastp's dedupOut).
    const bool dropped = plan_.dedup && record.duplicate;
    if (!plan_.index_blacklist1.empty() && listed(plan_.index_blacklist1, first_index(r.header())))
      return;
    if (s_.fix_mgi_id) fix_mgi(r);
    if (s_.umi != UmiLocation::none) umi(r, nullptr);
    cut(r, 0);
    if (r.kept && s_.poly_g) poly_g(r);
    if (r.kept && s_.adapter_trimming) {
      if (!plan_.adapter1.empty())
        (void)adapter_by_sequence(r, plan_.adapter1, tally.counts.adapters_read1, tally.counts);
      if (!plan_.fasta_adapters.empty()) adapters_from_fasta(r);
    }
    if (r.kept && s_.poly_x) poly_x(r, tally.counts);
    if (r.kept) max_length(r, 0);
    const int result = fate(r);
    tally.counts.add(static_cast<ReadFate>(result));
    if (dropped) return;
    if (r.kept && result == kernel::kFatePassed) {
      append_read(out.out1, r);
      tally.after1.add(r.seq_view(), r.qual_view());
      ++tally.reads_out;
      tally.bases_out += static_cast<std::uint64_t>(r.length);
    } else if (plan_.write_failed) {
      append_read(out.failed, r, fate_tag(result));
    }
  }

  void trim_pair(ReadChunk& chunk1, FastqRecord& record1, ReadChunk& chunk2, FastqRecord& record2,
                 ChunkOutput& out, TrimTally& tally, std::string& rc2) const {
    WorkRead r1(chunk1, record1), r2(chunk2, record2);
    tally.before1.add(r1.seq_view(), r1.qual_view());
    tally.before2.add(r2.seq_view(), r2.qual_view());
    tally.reads_in += 2;
    tally.bases_in += record1.length + record2.length;
    const bool dropped = plan_.dedup && record1.duplicate;
    FilterCounts& counts = tally.counts;
    if (listed(plan_.index_blacklist1, first_index(r1.header())) ||
        listed(plan_.index_blacklist2, last_index(r2.header())))
      return;
    if (s_.fix_mgi_id) {
      fix_mgi(r1);
      fix_mgi(r2);
    }
    if (s_.umi != UmiLocation::none) umi(r1, &r2);
    cut(r1, 0);
    cut(r2, 1);
    const bool both = r1.kept && r2.kept;
    if (both && s_.poly_g) {
      poly_g(r1);
      poly_g(r2);
    }
    if (both) {
      rc2.resize(static_cast<std::size_t>(r2.length));
      kernel::reverse_complement(r2.s(), r2.length, rc2.data());
      const kernel::Overlap ov =
          kernel::analyze_overlap(r1.s(), r1.length, rc2.data(), r2.length, limits_);
      // fastp fills the histogram on its first worker thread only; seqfuse
      // counts every pair (the same with fastp -w 1).
      const int size = kernel::insert_size(ov, r1.length, r2.length, r1.front_trimmed,
                                           r2.front_trimmed, kUnknownInsert);
      ++counts.insert_sizes[static_cast<std::size_t>(size)];
      if (s_.correction) {
        const kernel::Correction c = kernel::correct_overlap(
            r1.s(), r1.q(), r1.length, r2.s(), r2.q(), r2.length, ov, counts.corrections.data());
        if (c.corrected > 0) counts.corrected_reads += (c.read1 && c.read2) ? 2 : 1;
      }
      if (s_.adapter_trimming) {
        bool trimmed = false;
        if (ov.overlapped && ov.offset < 0) {
          // The insert is shorter than the reads: what lies beyond it is adapter.
          const int len1 = std::min(r1.length, ov.length + r2.front_trimmed);
          const int len2 = std::min(r2.length, ov.length + r1.front_trimmed);
          const std::string_view adapter1(r1.s() + len1,
                                          static_cast<std::size_t>(r1.length - len1));
          const std::string_view adapter2(r2.s() + len2,
                                          static_cast<std::size_t>(r2.length - len2));
          counts.adapter_trimmed_reads += 2;
          counts.adapter_trimmed_bases += adapter1.size() + adapter2.size();
          if (!adapter1.empty()) ++counts.adapters_read1[std::string(adapter1)];
          if (!adapter2.empty()) ++counts.adapters_read2[std::string(adapter2)];
          r1.length = len1;
          r2.length = len2;
          trimmed = true;
        }
        if (!trimmed) {
          if (!plan_.adapter1.empty())
            (void)adapter_by_sequence(r1, plan_.adapter1, counts.adapters_read1, counts);
          if (!plan_.adapter2.empty())
            (void)adapter_by_sequence(r2, plan_.adapter2, counts.adapters_read2, counts);
        }
        if (!plan_.fasta_adapters.empty()) {
          adapters_from_fasta(r1);
          adapters_from_fasta(r2);
        }
      }
      if (plan_.write_overlapped) overlapped(r1, r2, out.overlapped);
      if (s_.poly_x) {
        poly_x(r1, counts);
        poly_x(r2, counts);
      }
      max_length(r1, 0);
      max_length(r2, 1);
    }
    const int result1 = fate(r1);
    const int result2 = fate(r2);
    counts.add(static_cast<ReadFate>(std::max(result1, result2)), 2);
    if (dropped) return;
    const bool pass1 = r1.kept && result1 == kernel::kFatePassed;
    const bool pass2 = r2.kept && result2 == kernel::kFatePassed;
    if (pass1 && pass2) {
      if (plan_.interleaved_output) {
        append_read(out.out1, r1);
        append_read(out.out1, r2);
      } else {
        append_read(out.out1, r1);
        append_read(out.out2, r2);
      }
      tally.after1.add(r1.seq_view(), r1.qual_view());
      tally.after2.add(r2.seq_view(), r2.qual_view());
      tally.reads_out += 2;
      tally.bases_out += static_cast<std::uint64_t>(r1.length + r2.length);
    } else if (pass1) {
      if (plan_.write_unpaired1) {
        append_read(out.unpaired1, r1);
        if (plan_.write_failed) append_read(out.failed, r2, fate_tag(result2));
      } else if (plan_.write_failed) {
        append_read(out.failed, r1, "paired_read_is_failing");
        append_read(out.failed, r2, fate_tag(result2));
      }
    } else if (pass2) {
      if (plan_.write_unpaired2) {
        append_read(out.unpaired2, r2);
        if (plan_.write_failed) append_read(out.failed, r1, fate_tag(result1));
      } else if (plan_.write_unpaired1) {
        append_read(out.unpaired1, r2);
        if (plan_.write_failed) append_read(out.failed, r1, fate_tag(result1));
      } else if (plan_.write_failed) {
        append_read(out.failed, r1, fate_tag(result1));
        append_read(out.failed, r2, "paired_read_is_failing");
      }
    }
    // fastp writes neither read of a pair that fails on both sides to
    // --failed_out (its branches cover one passing read only).
  }

  const TrimPlan& plan_;
  const TrimSettings& s_;
  kernel::OverlapLimits limits_;
  int fasta_match_required_ = 4;
};

}  // namespace

std::unique_ptr<TrimEngine> make_cpu_trim_engine(const TrimPlan& plan) {
  return std::make_unique<CpuTrimEngine>(plan);
}

}  // namespace seqfuse::preprocess
