// The CPU engine: fastp 0.23.2's per-read pipeline, read by read, with the
// arithmetic of gpu/preprocess/. The order of the steps is fastp's
// (seprocessor.cpp / peprocessor.cpp); docs/fastq-trim.md lists it.
#include <algorithm>
#include <string_view>

#include "gpu/preprocess/read_pipeline.hpp"
#include "preprocess/engine.hpp"
#include "preprocess/pipeline_params.hpp"
#include "preprocess/umi.hpp"

namespace seqfuse::preprocess {
namespace {

namespace kernel = gpu::preprocess;

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
  explicit CpuTrimEngine(const TrimPlan& plan)
      : plan_(plan), s_(plan.settings), host_pipeline_(plan) {
    limits_ = host_pipeline_.params.limits;
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

  // The shared pipeline (gpu/preprocess/read_pipeline.hpp) works on a span
  // of the read's kept part; its result is taken back with take_span.
  static kernel::ReadSpan span_of(const WorkRead& r) {
    kernel::ReadSpan span;
    span.seq = r.seq;
    span.qual = r.qual;
    span.begin = r.begin;
    span.length = r.length;
    return span;
  }
  static void take_span(WorkRead& r, const kernel::ReadSpan& span) {
    r.kept = span.kept;
    if (!r.kept) return;  // fastp's NULL read: the original stays for --failed_out
    r.begin = span.begin;
    r.length = span.length;
    r.front_trimmed = span.front_trimmed;
  }

  // What fastp counts of one read's pipeline events.
  static void count_events(const kernel::ReadEvents& ev, const WorkRead& r,
                           const std::string& adapter, AdapterCounts& seen, FilterCounts& counts) {
    const kernel::AdapterCut& cut = ev.adapter;
    if (cut.kind != 0) {
      counts.adapter_trimmed_reads += static_cast<std::uint64_t>(cut.reads);
      counts.adapter_trimmed_bases += static_cast<std::uint64_t>(cut.length);
      if (cut.length > 0) count_adapter(seen, adapter_cut_sequence(cut, r.seq, adapter));
    }
    if (ev.polyx_base >= 0) {
      const std::size_t slot = polyx_slot(ev.polyx_base);
      ++counts.polyx_reads[slot];
      counts.polyx_bases[slot] += static_cast<std::uint64_t>(ev.polyx_trimmed);
    }
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
    kernel::ReadSpan span = span_of(r);
    kernel::ReadEvents ev;
    kernel::trim_single_read(span, params_, ev);
    take_span(r, span);
    count_events(ev, r, plan_.adapter1, tally.counts.adapters_read1, tally.counts);
    const int result = ev.fate;
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
    kernel::ReadSpan span1 = span_of(r1), span2 = span_of(r2);
    kernel::PairEvents ev;
    rc2.resize(static_cast<std::size_t>(r2.length));
    kernel::trim_read_pair(span1, span2, rc2.data(), params_, ev, counts.corrections.data());
    take_span(r1, span1);
    take_span(r2, span2);
    if (ev.insert_size >= 0) ++counts.insert_sizes[static_cast<std::size_t>(ev.insert_size)];
    if (ev.corrected > 0) counts.corrected_reads += (ev.corrected1 && ev.corrected2) ? 2 : 1;
    count_events(ev.read[0], r1, plan_.adapter1, counts.adapters_read1, counts);
    count_events(ev.read[1], r2, plan_.adapter2, counts.adapters_read2, counts);
    if (plan_.write_overlapped && ev.read[0].length_after_adapters >= 0) {
      WorkRead a1 = r1, a2 = r2;
      a1.length = ev.read[0].length_after_adapters;
      a2.length = ev.read[1].length_after_adapters;
      overlapped(a1, a2, out.overlapped);
    }
    const int result1 = ev.read[0].fate;
    const int result2 = ev.read[1].fate;
    counts.add(static_cast<ReadFate>(ev.fate()), 2);
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
  HostPipeline host_pipeline_;
  const kernel::PipelineParams& params_ = host_pipeline_.params;
};

}  // namespace

std::unique_ptr<TrimEngine> make_cpu_trim_engine(const TrimPlan& plan) {
  return std::make_unique<CpuTrimEngine>(plan);
}

}  // namespace seqfuse::preprocess
