#include "bwt/reference_pack.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <memory_resource>
#include <ostream>
#include <string_view>
#include <utility>

#include "bwt/bwa_random.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "io/batch_reader.hpp"
#include "io/record_text.hpp"

namespace seqfuse::bwt {
namespace {

constexpr std::uint8_t kAmbiguous = 4;  // bwa's nst_nt4_table gives >= 4: a random base
constexpr std::uint8_t kRejected = 0xFF;

// bwa maps A C G T (either case) to 0-3 and every other byte to a random base.
// We accept only what can stand in a nucleotide FASTA (the IUPAC codes, U and
// the gap '-'), because anything else there is almost always a protein file
// given by mistake, which bwa would silently index as random DNA.
constexpr std::array<std::uint8_t, 256> make_letter_codes() {
  std::array<std::uint8_t, 256> codes{};
  codes.fill(kRejected);
  constexpr std::string_view kBases = "ACGT";
  constexpr std::string_view kOthers = "NRYKMSWBDHVU";
  for (std::size_t i = 0; i < kBases.size(); ++i) {
    codes[static_cast<unsigned char>(kBases[i])] = static_cast<std::uint8_t>(i);
    codes[static_cast<unsigned char>(kBases[i] - 'A' + 'a')] = static_cast<std::uint8_t>(i);
  }
  for (const char c : kOthers) {
    codes[static_cast<unsigned char>(c)] = kAmbiguous;
    codes[static_cast<unsigned char>(c - 'A' + 'a')] = kAmbiguous;
  }
  codes[static_cast<unsigned char>('-')] = kAmbiguous;
  return codes;
}
constexpr std::array<std::uint8_t, 256> kLetterCodes = make_letter_codes();

// Out through a buffer: one call per block, not per byte.
class ByteSink {
 public:
  explicit ByteSink(std::ostream& out) : out_(out) { buffer_.reserve(kBlock); }
  ~ByteSink() { flush(); }
  ByteSink(const ByteSink&) = delete;
  ByteSink& operator=(const ByteSink&) = delete;

  void put(char c) {
    buffer_.push_back(c);
    if (buffer_.size() >= kBlock) flush();
  }
  void put(std::string_view text) {
    buffer_.append(text);
    if (buffer_.size() >= kBlock) flush();
  }
  void put(std::uint64_t value) { put(std::string_view(std::to_string(value))); }
  void flush() {
    out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    buffer_.clear();
  }

 private:
  static constexpr std::size_t kBlock = std::size_t{1} << 20;
  std::ostream& out_;
  std::string buffer_;
};

// Packs the whole FASTA as bwa's bns_fasta2bntseq does: the letters coded on
// threads, then one pass in file order over the ambiguous letters alone.
// Each ambiguous letter draws the next random base; a run of them continues
// only while the byte is the very same one as the byte before ('N' then 'n'
// starts a new run), and runs restart at every record.
PackedReference pack_parsed(const std::string& display_name, const io::SequenceBatch& batch,
                            unsigned threads) {
  PackedReference ref;
  ref.seed = BwaRandom::kBwaSeed;
  const std::uint64_t total = batch.total_bases();
  for (std::size_t r = 0; r < batch.size(); ++r) {
    if (batch.length(r) == 0)
      throw Error(display_name + ": record " + std::to_string(r + 1) + " " +
                  io::quoted(batch.name(r)) + " has no bases");
    ReferenceRecord record;
    record.name = batch.name(r);
    record.comment = batch.comment(r);
    record.offset = batch.offsets[r];
    record.length = batch.length(r);
    ref.records.push_back(std::move(record));
  }
  ref.bases.resize(total);
  const char* letters = batch.bases.data();
  std::uint8_t* codes = ref.bases.data();
  std::atomic<std::uint64_t> first_rejected{total};
  // Which blocks hold an ambiguous letter: the pass in file order below
  // skips the others (a human genome's Ns sit in a few gaps).
  constexpr unsigned kBlockBits = 22;
  std::vector<std::uint8_t> block_has_ambiguous((total >> kBlockBits) + 1, 0);
  parallel_chunks(total, std::size_t{1} << kBlockBits, threads,
                  [&](unsigned, std::size_t begin, std::size_t end) {
                    bool ambiguous = false;
                    for (std::size_t i = begin; i < end; ++i) {
                      const std::uint8_t code =
                          kLetterCodes[static_cast<unsigned char>(letters[i])];
                      codes[i] = code;
                      ambiguous |= code == kAmbiguous;
                      if (code == kRejected) {
                        std::uint64_t seen = first_rejected.load();
                        while (i < seen && !first_rejected.compare_exchange_weak(seen, i)) {
                        }
                        break;
                      }
                    }
                    block_has_ambiguous[begin >> kBlockBits] = ambiguous;
                  });
  if (const std::uint64_t i = first_rejected.load(); i < total) {
    const auto r =
        static_cast<std::size_t>(std::upper_bound(batch.offsets.begin(), batch.offsets.end(), i) -
                                 batch.offsets.begin() - 1);
    throw Error(display_name + ": record " + std::to_string(r + 1) + " " +
                io::quoted(batch.name(r)) + ": " + io::quoted(std::string_view(letters + i, 1)) +
                " at base " + std::to_string(i - batch.offsets[r] + 1) +
                " is not a nucleotide code (IUPAC letters only; a protein file?)");
  }
  BwaRandom random(ref.seed);
  std::uint64_t ambiguous = 0;
  for (ReferenceRecord& record : ref.records) {
    bool open_run = false;       // an ambiguous letter came before in this record
    std::uint64_t previous = 0;  // its position
    const std::uint64_t end = record.offset + record.length;
    for (std::uint64_t i = record.offset; i < end; ++i) {
      // The next ambiguous code at or after i in this record, blocks
      // without one skipped.
      const void* hit = nullptr;
      while (i < end && hit == nullptr) {
        const std::uint64_t block_end = std::min(end, ((i >> kBlockBits) + 1) << kBlockBits);
        if (block_has_ambiguous[i >> kBlockBits])
          hit = std::memchr(codes + i, kAmbiguous, block_end - i);
        if (hit == nullptr) i = block_end;
      }
      if (hit == nullptr) break;
      i = static_cast<std::uint64_t>(static_cast<const std::uint8_t*>(hit) - codes);
      const char letter = letters[i];
      if (open_run && previous + 1 == i && ref.holes.back().letter == letter) {
        ++ref.holes.back().length;
      } else {
        ref.holes.push_back({i, 1, letter});
        ++record.ambiguous_runs;
      }
      codes[i] = random.next_base();
      open_run = true;
      previous = i;
      ++ambiguous;
    }
  }
  if (ambiguous == total && total > 0)
    throw Error(display_name + ": no A, C, G or T in the reference (only ambiguous letters)");
  return ref;
}

}  // namespace

PackedReference pack_reference(const std::string& fasta_path, unsigned threads) {
  // The whole file as one batch: a plain FASTA parsed on threads, gzip and
  // stdin in one stream (io::read_all); the letters are then coded in place.
  const io::SequenceBatch batch =
      io::read_all(fasta_path, std::pmr::new_delete_resource(), threads);
  const std::string display_name = fasta_path == "-" ? "stdin" : fasta_path;
  return pack_parsed(display_name, batch, threads);
}

RowVector<std::uint8_t> both_strands(const PackedReference& ref, unsigned threads) {
  const std::size_t n = ref.bases.size();
  const std::uint8_t* bases = ref.bases.data();
  RowVector<std::uint8_t> text(2 * n);
  std::uint8_t* out = text.data();
  parallel_chunks(n, std::size_t{1} << 22, threads,
                  [&](unsigned, std::size_t begin, std::size_t end) {
                    for (std::size_t i = begin; i < end; ++i) {
                      out[i] = bases[i];
                      out[2 * n - 1 - i] = static_cast<std::uint8_t>(3 - bases[i]);
                    }
                  });
  return text;
}

RowVector<char> pac_bytes(const PackedReference& ref, unsigned threads) {
  const std::uint64_t n = ref.bases.size();
  const std::uint8_t* bases = ref.bases.data();
  // bwa's _set_pac: base l goes to byte l / 4 at bit 2 * (3 - l % 4), so the
  // first base of each byte sits in its two high bits. bwa makes the file
  // n / 4 + 2 bytes long: the bytes of the bases (the last one partial when
  // n % 4 != 0, padded with a zero byte when n % 4 == 0), then n % 4, from
  // which bwa_seq_len() recovers n.
  const std::uint64_t full = n / 4;
  RowVector<char> pac(full + 2);
  parallel_chunks(full, std::size_t{1} << 22, threads,
                  [&](unsigned, std::size_t begin, std::size_t end) {
                    for (std::size_t b = begin; b < end; ++b) {
                      const std::uint8_t* q = bases + 4 * b;
                      pac[b] = static_cast<char>((q[0] << 6) | (q[1] << 4) | (q[2] << 2) | q[3]);
                    }
                  });
  unsigned last = 0;
  for (unsigned k = 0; 4 * full + k < n; ++k)
    last |= static_cast<unsigned>(bases[4 * full + k]) << (6 - 2 * k);
  pac[full] = static_cast<char>(last);  // the partial byte, or the zero byte
  pac[full + 1] = static_cast<char>(n % 4);
  return pac;
}

void write_pac(const PackedReference& ref, std::ostream& out, unsigned threads) {
  const RowVector<char> pac = pac_bytes(ref, threads);
  out.write(pac.data(), static_cast<std::streamsize>(pac.size()));
}

void write_ann(const PackedReference& ref, std::ostream& out) {
  ByteSink sink(out);
  // First line: forward length (the final bns_fasta2bntseq call is
  // forward-only), record count, seed.
  sink.put(std::uint64_t{ref.bases.size()});
  sink.put(' ');
  sink.put(std::uint64_t{ref.records.size()});
  sink.put(' ');
  sink.put(std::uint64_t{ref.seed});
  sink.put('\n');
  for (const ReferenceRecord& r : ref.records) {
    // gi is always 0; a missing comment is written as bwa's strdup("(null)").
    sink.put("0 ");
    sink.put(r.name);
    sink.put(' ');
    sink.put(r.comment.empty() ? std::string_view("(null)") : std::string_view(r.comment));
    sink.put('\n');
    sink.put(r.offset);
    sink.put(' ');
    sink.put(r.length);
    sink.put(' ');
    sink.put(std::uint64_t{r.ambiguous_runs});
    sink.put('\n');
  }
}

void write_amb(const PackedReference& ref, std::ostream& out) {
  ByteSink sink(out);
  sink.put(std::uint64_t{ref.bases.size()});
  sink.put(' ');
  sink.put(std::uint64_t{ref.records.size()});
  sink.put(' ');
  sink.put(std::uint64_t{ref.holes.size()});
  sink.put('\n');
  for (const AmbiguousRun& run : ref.holes) {
    sink.put(run.offset);
    sink.put(' ');
    sink.put(run.length);
    sink.put(' ');
    sink.put(run.letter);
    sink.put('\n');
  }
}

}  // namespace seqfuse::bwt
