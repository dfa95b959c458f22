// fastp 0.23.2's per-read pipeline after the host-only steps (barcode
// filter, --fix_mgi_id, UMIs): trimAndCut, poly-G, adapters, poly-X,
// --max_len and the filters, for one read or one pair. The CPU engine
// (src/preprocess/cpu_engine.cpp) and the GPU kernel (trim_reads.cu) both
// call these functions, so a CPU test covers the GPU's per-read logic.
//
// Nothing here counts into maps or formats text: a step that fastp counts
// reports what it did in ReadEvents / PairEvents, and each engine adds
// those to its tally its own way.
#pragma once

#include "gpu/preprocess/overlap.hpp"
#include "gpu/preprocess/read_filter.hpp"
#include "gpu/preprocess/read_trim.hpp"
#include "gpu/primitives/host_device.hpp"

namespace seqfuse::gpu::preprocess {

// Everything the pipeline reads besides the read: plain values and
// pointers, so it can be copied to the device as it is.
struct PipelineParams {
  int front[2] = {0, 0}, tail[2] = {0, 0}, max_len[2] = {0, 0};
  QualityCut cut;
  ReadFilter filter;
  OverlapLimits limits;
  bool poly_g = false;
  int poly_g_min_len = 10;
  bool poly_x = false;
  int poly_x_min_len = 10;
  bool adapter_trimming = true;
  bool correction = false;
  // fastp's hasSeqR1/R2: adapter[side] of adapter_length[side] bytes (0: none).
  const char* adapter[2] = {nullptr, nullptr};
  int adapter_length[2] = {0, 0};
  // --adapter_fasta: fasta_count sequences, sequence k at
  // fasta_bases + fasta_offsets[k], fasta_offsets[k + 1] - fasta_offsets[k] long.
  const char* fasta_bases = nullptr;
  const int* fasta_offsets = nullptr;
  int fasta_count = 0;
  int fasta_match_required = 4;
  int unknown_insert = 512;  // fastp's --insert_size_max: the histogram's last bin
};

// A read being trimmed: [begin, begin + length) of the bytes at seq/qual.
struct ReadSpan {
  char* seq = nullptr;
  char* qual = nullptr;
  bool kept = true;  // false: fastp's NULL read, dropped by trimAndCut
  int begin = 0, length = 0, front_trimmed = 0;
  [[nodiscard]] SF_HOST_DEVICE char* s() const { return seq + begin; }
  [[nodiscard]] SF_HOST_DEVICE char* q() const { return qual + begin; }
};

// An adapter cut off a read: fastp counts the read and its bases and files
// the cut-off sequence. kind 1: the read's bytes [from, from + length)
// (relative to ReadSpan::seq); kind 2: the first `length` bytes of the
// side's adapter sequence (the adapter began before the read).
struct AdapterCut {
  int kind = 0;  // 0: nothing was cut
  int from = 0, length = 0;
  int reads = 0;  // adapter-trimmed reads fastp counts for it: 0 or 1
};

struct ReadEvents {
  AdapterCut adapter;
  int polyx_base = -1;  // poly_x_base's index; -1: no poly-X tail
  int polyx_trimmed = 0;
  int length_after_adapters = -1;  // paired, both kept: the length --overlapped_out sees
  int fate = kFatePassed;
};

struct PairEvents {
  ReadEvents read[2];
  int insert_size = -1;  // -1: not counted (a read was dropped by trimAndCut)
  int corrected = 0;     // bases changed by -c
  bool corrected1 = false, corrected2 = false;
  [[nodiscard]] SF_HOST_DEVICE int fate() const {
    return read[0].fate > read[1].fate ? read[0].fate : read[1].fate;
  }
};

// -f/-t and the sliding windows (fastp's trimAndCut).
SF_HOST_DEVICE void pipeline_cut(ReadSpan& r, const PipelineParams& p, int side) {
  KeptPart part;
  r.kept = trim_and_cut(r.s(), r.q(), r.length, p.front[side], p.tail[side], p.cut, &part);
  if (r.kept) {
    r.begin += part.begin;
    r.length = part.length;
    r.front_trimmed = part.front_trimmed;
  }
}

SF_HOST_DEVICE void pipeline_poly_x(ReadSpan& r, const PipelineParams& p, ReadEvents& ev) {
  const PolyXCut cut = poly_x_cut(r.s(), r.length, p.poly_x_min_len);
  if (cut.base < 0) return;
  r.length = cut.length;
  ev.polyx_base = cut.base;
  ev.polyx_trimmed = cut.trimmed;
}

// fastp's trimBySequence (matchReq 4) against the side's adapter.
SF_HOST_DEVICE void pipeline_adapter_by_sequence(ReadSpan& r, const PipelineParams& p, int side,
                                                 ReadEvents& ev) {
  const int alen = p.adapter_length[side];
  int pos = 0;
  if (alen == 0 || !find_adapter(r.s(), r.length, p.adapter[side], alen, 4, &pos)) return;
  AdapterCut cut;
  if (pos < 0) {
    cut.kind = 2;
    cut.length = alen + pos;
  } else {
    cut.kind = 1;
    cut.from = r.begin + pos;
    cut.length = r.length - pos;
  }
  cut.reads = cut.length > 0 ? 1 : 0;
  if (cut.length > 0) ev.adapter = cut;
  r.length = pos > 0 ? pos : 0;
}

// fastp's trimByMultiSequences: every FASTA adapter in turn. fastp 0.23.2
// measures the cut-off part after shortening the read, so nothing is
// counted; the reads are trimmed all the same.
SF_HOST_DEVICE void pipeline_adapters_from_fasta(ReadSpan& r, const PipelineParams& p) {
  for (int k = 0; k < p.fasta_count; ++k) {
    const int from = p.fasta_offsets[k];
    int pos = 0;
    if (find_adapter(r.s(), r.length, p.fasta_bases + from, p.fasta_offsets[k + 1] - from,
                     p.fasta_match_required, &pos))
      r.length = pos > 0 ? pos : 0;
  }
}

SF_HOST_DEVICE void pipeline_max_length(ReadSpan& r, const PipelineParams& p, int side) {
  if (p.max_len[side] > 0 && p.max_len[side] < r.length) r.length = p.max_len[side];
}

SF_HOST_DEVICE int pipeline_fate(const ReadSpan& r, const PipelineParams& p) {
  return read_fate(r.s(), r.q(), r.length, r.kept, p.filter);
}

// fastp's SingleEndProcessor, from trimAndCut to the filter.
SF_HOST_DEVICE void trim_single_read(ReadSpan& r, const PipelineParams& p, ReadEvents& ev) {
  pipeline_cut(r, p, 0);
  if (r.kept && p.poly_g) r.length = poly_g_trimmed_length(r.s(), r.length, p.poly_g_min_len);
  if (r.kept && p.adapter_trimming) {
    pipeline_adapter_by_sequence(r, p, 0, ev);
    if (p.fasta_count > 0) pipeline_adapters_from_fasta(r, p);
  }
  if (r.kept && p.poly_x) pipeline_poly_x(r, p, ev);
  if (r.kept) pipeline_max_length(r, p, 0);
  ev.fate = pipeline_fate(r, p);
}

// fastp's PairEndProcessor, from trimAndCut to the filters. rc2 has room
// for read 2's bases (its reverse complement is built there); `matrix` (64
// counters, nullable) gets the -c correction counts (correct_overlap).
template <typename Counter>
SF_HOST_DEVICE void trim_read_pair(ReadSpan& r1, ReadSpan& r2, char* rc2, const PipelineParams& p,
                                   PairEvents& ev, Counter* matrix) {
  pipeline_cut(r1, p, 0);
  pipeline_cut(r2, p, 1);
  if (r1.kept && r2.kept) {
    if (p.poly_g) {
      r1.length = poly_g_trimmed_length(r1.s(), r1.length, p.poly_g_min_len);
      r2.length = poly_g_trimmed_length(r2.s(), r2.length, p.poly_g_min_len);
    }
    reverse_complement(r2.s(), r2.length, rc2);
    const Overlap ov = analyze_overlap(r1.s(), r1.length, rc2, r2.length, p.limits);
    // fastp fills the histogram on its first worker thread only; seqfuse
    // counts every pair (the same with fastp -w 1).
    ev.insert_size =
        insert_size(ov, r1.length, r2.length, r1.front_trimmed, r2.front_trimmed, p.unknown_insert);
    if (p.correction) {
      const Correction c =
          correct_overlap(r1.s(), r1.q(), r1.length, r2.s(), r2.q(), r2.length, ov, matrix);
      ev.corrected = c.corrected;
      ev.corrected1 = c.read1;
      ev.corrected2 = c.read2;
    }
    if (p.adapter_trimming) {
      if (ov.overlapped && ov.offset < 0) {
        // The insert is shorter than the reads: what lies beyond it is adapter.
        const int len1 =
            r1.length < ov.length + r2.front_trimmed ? r1.length : ov.length + r2.front_trimmed;
        const int len2 =
            r2.length < ov.length + r1.front_trimmed ? r2.length : ov.length + r1.front_trimmed;
        ReadSpan* reads[2] = {&r1, &r2};
        const int lengths[2] = {len1, len2};
        for (int side = 0; side < 2; ++side) {
          AdapterCut& cut = ev.read[side].adapter;
          cut.kind = 1;
          cut.from = reads[side]->begin + lengths[side];
          cut.length = reads[side]->length - lengths[side];
          cut.reads = 1;  // fastp counts both reads, even one with nothing cut
          reads[side]->length = lengths[side];
        }
      } else {
        pipeline_adapter_by_sequence(r1, p, 0, ev.read[0]);
        pipeline_adapter_by_sequence(r2, p, 1, ev.read[1]);
      }
      if (p.fasta_count > 0) {
        pipeline_adapters_from_fasta(r1, p);
        pipeline_adapters_from_fasta(r2, p);
      }
    }
    ev.read[0].length_after_adapters = r1.length;
    ev.read[1].length_after_adapters = r2.length;
    if (p.poly_x) {
      pipeline_poly_x(r1, p, ev.read[0]);
      pipeline_poly_x(r2, p, ev.read[1]);
    }
    pipeline_max_length(r1, p, 0);
    pipeline_max_length(r2, p, 1);
  }
  ev.read[0].fate = pipeline_fate(r1, p);
  ev.read[1].fate = pipeline_fate(r2, p);
}

}  // namespace seqfuse::gpu::preprocess
