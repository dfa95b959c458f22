#include "io/parallel_fasta.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/huge_pages.hpp"
#include "core/mapped_input.hpp"
#include "core/parallel.hpp"
#include "core/report.hpp"
#include "io/fasta_text.hpp"

namespace seqfuse::io {
namespace {

// Beyond this, threads only contend for memory bandwidth.
constexpr unsigned kMaxThreads = 32;
// The start of the file that decides whether it is plain FASTA. Far more than
// any real run of blank lines before the first header.
constexpr std::size_t kSniffBytes = std::size_t{64} << 10;

unsigned thread_count(unsigned requested) {
  if (requested != 0) return requested;
  return std::clamp(cpu_budget(), 1u, kMaxThreads);  // affinity and cgroup quota honoured
}

// Where the first record starts, by RecordParser::detect_format's rule: lines
// that are empty or hold only '\r' are skipped, and the next line must begin
// with '>'. std::nullopt for anything else (FASTQ, gzip, an error, no record,
// blank lines running off the end of `text`): the sequential parser then
// decides, with its own messages.
std::optional<std::size_t> records_start(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (text[pos] == '>') return pos;
    const std::size_t newline = text.find('\n', pos);
    if (newline == std::string_view::npos) return std::nullopt;
    for (std::size_t i = pos; i < newline; ++i) {
      if (text[i] != '\r') return std::nullopt;
    }
    pos = newline + 1;
  }
  return std::nullopt;
}

// Slice boundaries: `first`, then the start of the first line at or after
// each equal share of text[first, end), then text.size(). A boundary that
// falls inside a record (a line that does not begin with '>') starts a
// continuation: the slice's lines up to its first header belong to the
// record in progress (ParsedSlice::tail), so a genome of one long record
// is still parsed on every thread.
std::vector<std::size_t> slice_bounds(std::string_view text, std::size_t first,
                                      std::size_t slices) {
  const std::size_t n = text.size();
  std::vector<std::size_t> bounds{first};
  for (std::size_t k = 1; k < slices; ++k) {
    const std::size_t from = std::max(first + (n - first) / slices * k, bounds.back() + 1);
    if (from >= n) break;
    // A line start `pos` >= from follows a '\n' at pos - 1 >= from - 1.
    const auto* newline =
        static_cast<const char*>(std::memchr(text.data() + from - 1, '\n', n - from + 1));
    if (newline == nullptr) break;
    const auto line_start = static_cast<std::size_t>(newline - text.data()) + 1;
    if (line_start >= n) break;
    bounds.push_back(line_start);
  }
  bounds.push_back(n);
  return bounds;
}

// The file mapped read-only: the slices are parsed straight out of the page
// cache. Copying the file into fresh memory first cost more than parsing it
// (perf, 230 MB file: 47 % of the read phase was the kernel zeroing the
// copy's pages, on top of the copy). As with the mapped safetensors and
// k-mer database files, a file truncated while it is parsed raises SIGBUS,
// which the guard turns into one error line naming the file
// (core/mapped_input.hpp); a file appended to is read as it stood when mapped.
class MappedText {
 public:
  // Null when the file cannot be opened or mapped, or is empty: the
  // sequential parser then reads it (and reports what is wrong).
  static std::unique_ptr<MappedText> open(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return nullptr;
    struct stat info {};
    void* map = MAP_FAILED;
    std::size_t size = 0;
    if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0) {
      size = static_cast<std::size_t>(info.st_size);
      map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    }
    ::close(fd);  // the mapping keeps the file
    if (map == MAP_FAILED) return nullptr;
    return std::unique_ptr<MappedText>(new MappedText(static_cast<const char*>(map), size, path));
  }
  ~MappedText() { ::munmap(const_cast<char*>(data_), size_); }
  MappedText(const MappedText&) = delete;
  MappedText& operator=(const MappedText&) = delete;

  [[nodiscard]] std::string_view text() const noexcept { return {data_, size_}; }
  // Asks the kernel to read ahead whatever of the file is not cached yet.
  void will_need() const noexcept {
    (void)::madvise(const_cast<char*>(data_), size_, MADV_WILLNEED);
  }

 private:
  MappedText(const char* data, std::size_t size, const std::string& path)
      : data_(data), size_(size), guard_(data, size, path) {}
  const char* data_;
  std::size_t size_;
  MappedInputGuard guard_;
};

// Whether `text` is plain FASTA, by its first bytes: not gzip or BGZF (1f
// 8b; records_start() would refuse them as well, but this says what is
// meant) and a first non-blank line that is a header.
bool is_plain_fasta(std::string_view text) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  if (text.size() >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b) return false;
  return records_start(text.substr(0, std::min(text.size(), kSniffBytes))).has_value();
}

struct ParsedSlice {
  explicit ParsedSlice(std::pmr::memory_resource* mr) : tail(mr), batch(mr) {}
  // A continuation's first lines: the bases of the record an earlier slice
  // began, and RecordSyntaxError's message if one of those lines is bad.
  std::pmr::vector<char> tail;
  std::optional<std::string> bad_tail;
  SequenceBatch batch;                    // the records that begin in the slice
  std::optional<std::string> bad_record;  // RecordSyntaxError of the record after them
  std::exception_ptr failure;             // anything else (allocation)
};

// Parses one slice: the lines before its first header (a continuation's
// tail, by parse_fasta_record's rule for sequence lines), then its records.
void parse_slice(std::string_view part, ParsedSlice& slice) {
  TextLines lines(part);
  try {
    append_sequence_lines(lines, slice.tail);
  } catch (const RecordSyntaxError& bad) {
    slice.bad_tail = bad.what;
    return;
  }
  try {
    parse_fasta_lines(lines, slice.batch);
  } catch (const RecordSyntaxError& bad) {
    slice.bad_record = bad.what;
  }
}

// Makes the pages of [begin, end) present, as writing to them would, without
// writing. Joining the slices copies into fresh memory, and on the GPU
// machine one thread faulting in 150 MB of 4 KiB pages took 0.1 s, longer
// than all the parsing; spread over 16 threads first, they took a third of it.
// Only advice: ignored where the kernel (< 5.14) or the memory does not
// support it (pinned memory is present anyway).
void populate(std::uintptr_t begin, std::uintptr_t end) noexcept {
#ifdef MADV_POPULATE_WRITE
  static const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  begin = (begin + page - 1) / page * page;  // whole pages inside the range only
  end = end / page * page;
  if (end > begin)
    (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
#else
  (void)begin;
  (void)end;
#endif
}

// The addresses where elements size() .. n - 1 of `c` go (within its
// capacity), for populate().
template <class Container>
std::pair<std::uintptr_t, std::uintptr_t> growth_range(const Container& c, std::size_t n) {
  const auto data = reinterpret_cast<std::uintptr_t>(c.data());
  constexpr std::uintptr_t kSize = sizeof(typename Container::value_type);
  return {data + c.size() * kSize, data + n * kSize};
}

// Where slice k's records, bases, names and comments go in the joined batch.
struct SliceStart {
  std::uint64_t records = 0;
  std::uint64_t bases = 0;
  std::uint64_t names = 0;
  std::uint64_t comments = 0;
};

// Appends slices 1.. to slice 0 in file order; every slice copies its own part
// on its own thread, and is freed right after.
void join_slices(std::vector<ParsedSlice>& slices, unsigned threads) {
  if (slices.size() == 1) return;
  std::vector<SliceStart> starts(slices.size() + 1);
  for (std::size_t k = 0; k < slices.size(); ++k) {
    const SequenceBatch& part = slices[k].batch;
    starts[k + 1] = {starts[k].records + part.size(),
                     starts[k].bases + slices[k].tail.size() + part.bases.size(),
                     starts[k].names + part.names.size(),
                     starts[k].comments + part.comments.size()};
  }
  // Where each slice's own records begin among the joined bases.
  std::vector<std::uint64_t> first_record_base(slices.size());
  for (std::size_t k = 0; k < slices.size(); ++k)
    first_record_base[k] = starts[k].bases + slices[k].tail.size();
  const SliceStart& total = starts.back();
  SequenceBatch& all = slices[0].batch;
  const std::uint64_t offsets = total.records + 1;
  all.bases.reserve(total.bases);
  all.offsets.reserve(offsets);
  all.name_offsets.reserve(offsets);
  all.comment_offsets.reserve(offsets);
  all.names.reserve(total.names);
  all.comments.reserve(total.comments);

  constexpr std::uintptr_t kPiece = std::uintptr_t{4} << 20;
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> pieces;
  for (const auto& [begin, end] :
       {growth_range(all.bases, total.bases), growth_range(all.offsets, offsets),
        growth_range(all.name_offsets, offsets), growth_range(all.comment_offsets, offsets),
        growth_range(all.names, total.names), growth_range(all.comments, total.comments)}) {
    for (std::uintptr_t p = begin; p < end; p += kPiece) {
      pieces.emplace_back(p, std::min(end, p + kPiece));
    }
  }
  parallel_chunks(pieces.size(), 1, threads, [&](unsigned, std::size_t i, std::size_t) {
    populate(pieces[i].first, pieces[i].second);
  });

  // Zero-filled at memory speed now that the pages are there, then overwritten.
  all.bases.resize(total.bases);
  all.offsets.resize(offsets);
  all.name_offsets.resize(offsets);
  all.comment_offsets.resize(offsets);
  all.names.resize(total.names);
  all.comments.resize(total.comments);
  parallel_chunks(slices.size() - 1, 1, threads, [&](unsigned, std::size_t k0, std::size_t) {
    const std::size_t k = k0 + 1;
    const SliceStart& at = starts[k];
    SequenceBatch& part = slices[k].batch;
    const std::vector<char>::size_type tail = slices[k].tail.size();
    std::copy(slices[k].tail.begin(), slices[k].tail.end(), all.bases.begin() + at.bases);
    std::copy(part.bases.begin(), part.bases.end(), all.bases.begin() + at.bases + tail);
    std::copy(part.names.begin(), part.names.end(), all.names.begin() + at.names);
    std::copy(part.comments.begin(), part.comments.end(), all.comments.begin() + at.comments);
    // Below 4 GiB: the caller checked the totals.
    const auto name_base = static_cast<std::uint32_t>(at.names);
    const auto comment_base = static_cast<std::uint32_t>(at.comments);
    for (std::size_t i = 1; i < part.offsets.size(); ++i) {
      all.offsets[at.records + i] = at.bases + tail + part.offsets[i];
      all.name_offsets[at.records + i] = name_base + part.name_offsets[i];
      all.comment_offsets[at.records + i] = comment_base + part.comment_offsets[i];
    }
    // Same resource, so the move releases the slice's arrays at once.
    part = SequenceBatch(large_buffer_resource());
    slices[k].tail = std::pmr::vector<char>(large_buffer_resource());
  });
  // Where each slice's first record begins, which is where the record in
  // progress before it ends, tails included. In file order: when slices
  // hold only a tail, the last of them decides where that record ends.
  for (std::size_t k = 1; k < slices.size(); ++k)
    all.offsets[starts[k].records] = first_record_base[k];
}

}  // namespace

std::optional<SequenceBatch> read_fasta_parallel(const std::string& path,
                                                 std::pmr::memory_resource* mr,
                                                 const ParallelFastaOptions& options) {
  if (path == "-") return std::nullopt;
  // Looked at before opening: opening a named pipe waits for its writer, and
  // closing it again would cut the writer off before the sequential parser
  // reopens it.
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return std::nullopt;
  const unsigned threads = thread_count(options.threads);
  const auto mapped = MappedText::open(path);
  // Only the first page is read to decide: a gzip or FASTQ file is then read
  // once, by the sequential parser.
  if (!mapped || !is_plain_fasta(mapped->text())) return std::nullopt;
  mapped->will_need();

  std::vector<ParsedSlice> slices;
  {
    const std::string_view all_text = mapped->text();
    const std::size_t first = *records_start(all_text);
    const std::size_t wanted = std::clamp<std::size_t>(
        (all_text.size() - first) / std::max<std::size_t>(options.min_slice_bytes, 1), 1, threads);
    const std::vector<std::size_t> bounds = slice_bounds(all_text, first, wanted);
    const std::size_t count = bounds.size() - 1;

    // Slice 0 parses straight into the result, reserved for every slice's
    // bases (the text bounds them), so a one-slice file is never copied.
    slices.reserve(count);
    slices.emplace_back(mr);
    slices[0].batch.bases.reserve(all_text.size() - first);
    for (std::size_t k = 1; k < count; ++k) slices.emplace_back(large_buffer_resource());
    parallel_chunks(count, 1, threads, [&](unsigned, std::size_t k, std::size_t) {
      ParsedSlice& slice = slices[k];
      try {
        const std::string_view part = all_text.substr(bounds[k], bounds[k + 1] - bounds[k]);
        if (k != 0) slice.batch.bases.reserve(part.size());
        parse_slice(part, slice);
      } catch (...) {
        slice.failure = std::current_exception();
      }
    });
  }

  // In file order, as the sequential parser would meet each problem.
  constexpr std::uint64_t kMaxText = std::numeric_limits<std::uint32_t>::max();
  std::uint64_t records = 0;  // before the slice
  std::uint64_t names = 0;
  std::uint64_t comments = 0;
  for (const ParsedSlice& slice : slices) {
    if (slice.bad_tail)  // a line of the record in progress, which began earlier
      throw Error(path + ": record " + std::to_string(records) + ": " + *slice.bad_tail);
    names += slice.batch.names.size();
    comments += slice.batch.comments.size();
    // Which comes first, the 4 GiB limit of names or a bad record, is the
    // sequential parser's call; so is what to do after running out of memory
    // (it needs less).
    if (names > kMaxText || comments > kMaxText || slice.failure) return std::nullopt;
    if (slice.bad_record) {
      throw Error(path + ": record " + std::to_string(records + slice.batch.size() + 1) + ": " +
                  *slice.bad_record);
    }
    records += slice.batch.size();
  }

  trace("read " + path + ": " + std::to_string(slices.size()) + " slices parsed");
  join_slices(slices, threads);
  trace("read " + path + ": slices joined");
  return std::optional<SequenceBatch>(std::move(slices[0].batch));
}

}  // namespace seqfuse::io
