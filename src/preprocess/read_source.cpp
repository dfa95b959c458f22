#include "preprocess/read_source.hpp"

#include <condition_variable>
#include <future>
#include <mutex>

#include "core/error.hpp"

namespace seqfuse::preprocess {
namespace {

// Long reads end a chunk early: its offsets are 32-bit.
constexpr std::size_t kChunkBytes = std::size_t{256} << 20;

Error fewer_reads(int side, const std::string& shorter, std::uint64_t records,
                  const std::string& longer) {
  return Error(std::string(side == 1 ? "read 1" : "read 2") + " input has fewer reads than " +
               (side == 1 ? "read 2" : "read 1") + ", " + shorter + " ends after record " +
               std::to_string(records) + " (" + longer + " goes on)");
}

}  // namespace

// Read 2's records for the chunk sizes read 1 publishes, until it is done.
struct ReadSource::Published {
  std::mutex mutex;
  std::condition_variable more;
  std::vector<std::size_t> sizes;
  bool done = false;
  void add(std::size_t n) {
    {
      const std::lock_guard lock(mutex);
      sizes.push_back(n);
    }
    more.notify_one();
  }
  void finish() {
    {
      const std::lock_guard lock(mutex);
      done = true;
    }
    more.notify_one();
  }
  // The size of chunk k; 0 once read 1 is done without it.
  std::size_t wait_for(std::size_t k) {
    std::unique_lock lock(mutex);
    more.wait(lock, [&] { return sizes.size() > k || done; });
    return sizes.size() > k ? sizes[k] : 0;
  }
};

ReadSource::ReadSource(const TrimOptions& o, Duplication* duplication, std::size_t chunk_records)
    : chunk_records_(chunk_records),
      interleaved_(o.interleaved_in),
      has_second_file_(!o.in2.empty()),
      phred64_(o.phred64),
      duplication_(duplication),
      limit_(o.reads_to_process > 0 ? static_cast<std::uint64_t>(o.reads_to_process) : 0) {
  const std::string in1 = o.stdin_input ? std::string("-") : o.in1;  // "-" is stdin too
  if (duplication_ != nullptr || interleaved_) {
    reader1_ = std::make_unique<FastqRecordReader>(in1, o.phred64);
    if (has_second_file_) reader2_ = std::make_unique<FastqRecordReader>(o.in2, o.phred64);
  } else {
    slicer1_ = std::make_unique<FastqSlicer>(in1);
    if (has_second_file_) slicer2_ = std::make_unique<FastqSlicer>(o.in2);
  }
}

ReadSource::~ReadSource() = default;

const std::string& ReadSource::name1() const {
  return reader1_ ? reader1_->display_name() : slicer1_->display_name();
}

std::size_t ReadSource::fill_group(std::vector<Slot>& group, std::exception_ptr& after) {
  after = nullptr;
  if (slicer1_) return slice_group(group, after);
  // Parsed as read (-D, interleaved): record by record, pairs in step.
  std::size_t n = 0;
  while (n < group.size() && fill(group[n])) ++n;
  return n;
}

void ReadSource::parse(Slot& slot) const {
  if (!slot.sliced) return;
  slot.sliced = false;
  parse_records(slot.reads, slicer1_->display_name(), phred64_);
  if (!slicer2_) return;
  parse_records(slot.mates, slicer2_->display_name(), phred64_);
  // A short chunk of read 2 is where its input ended (slice_mates).
  if (slot.mates.size() < slot.reads.size())
    throw fewer_reads(2, slicer2_->display_name(), slot.mates.first_record + slot.mates.size(),
                      slicer1_->display_name());
}

std::size_t ReadSource::records_wanted() const {
  if (limit_ == 0) return chunk_records_;
  return records_ >= limit_ ? 0 : std::min<std::uint64_t>(chunk_records_, limit_ - records_);
}

// Sliced: read 1 cuts its chunks (a count of records, or fewer when long reads
// reach kChunkBytes) and read 2 follows with the same counts on a thread of its own.
std::size_t ReadSource::slice_group(std::vector<Slot>& group, std::exception_ptr& after) {
  Published published;
  std::future<void> mates;
  if (slicer2_) mates = std::async(std::launch::async, [&] { slice_mates(group, published); });
  std::size_t n = 0;
  bool ended = false;  // read 1's input ended (not --reads_to_process)
  try {
    while (n < group.size() && !ended) {
      const std::size_t wanted = records_wanted();
      if (wanted == 0) break;
      Slot& slot = group[n];
      const std::size_t got = slicer1_->slice(slot.reads, wanted, kChunkBytes);
      ended = got < wanted && slot.reads.text.size() <= kChunkBytes;
      if (got == 0) break;
      slot.sliced = true;
      records_ += got;
      published.add(got);
      ++n;
    }
  } catch (...) {
    published.finish();
    if (mates.valid()) mates.wait();  // read 2's error, if any, comes from a later record
    throw;
  }
  published.finish();
  if (!mates.valid()) return n;
  mates.get();
  if (ended) {
    ReadChunk rest;
    if (slicer2_->slice(rest, 1, kChunkBytes) > 0)
      after = std::make_exception_ptr(
          fewer_reads(1, slicer1_->display_name(), slicer1_->records(), slicer2_->display_name()));
  }
  return n;
}

void ReadSource::slice_mates(std::vector<Slot>& group, Published& published) {
  for (std::size_t k = 0; k < group.size(); ++k) {
    const std::size_t want = published.wait_for(k);
    if (want == 0) return;
    ReadChunk& mates = group[k].mates;
    // Fewer records here mean read 2 ended: parse() says so, after the
    // records before it are checked.
    (void)slicer2_->slice(mates, want, std::size_t{15} * kChunkBytes);
    if (mates.text.size() > 0xffffffffu)
      throw Error("read 2 records too long for one chunk, " + slicer2_->display_name() +
                  " record " + std::to_string(mates.first_record + 1));
  }
}

// Fills `slot` with up to chunk_records_ records (pairs); false when none were left.
bool ReadSource::fill(Slot& slot) {
  slot.reads.clear();
  slot.mates.clear();
  slot.sliced = false;
  slot.reads.first_record = slot.mates.first_record = records_;
  // --reads_to_process: the first N reads (pairs); the rest is not read.
  while (slot.reads.size() < chunk_records_ && slot.reads.text.size() < kChunkBytes &&
         slot.mates.text.size() < kChunkBytes && (limit_ == 0 || records_ < limit_) && next(slot))
    ++records_;
  return slot.reads.size() > 0;
}

bool ReadSource::next(Slot& slot) {
  const bool got = next_record(slot);
  if (got && duplication_) {
    FastqRecord& r1 = slot.reads.records.back();
    if (paired()) {
      const FastqRecord& r2 = slot.mates.records.back();
      r1.duplicate = duplication_->check_pair(slot.reads.seq(r1), slot.mates.seq(r2));
    } else {
      r1.duplicate = duplication_->check_read(slot.reads.seq(r1));
    }
  }
  return got;
}

bool ReadSource::next_record(Slot& slot) {
  const bool got1 = reader1_->next(slot.reads);
  if (interleaved_) {
    if (got1 && !reader1_->next(slot.mates))
      throw Error("interleaved input ends with a read 1 that has no read 2, " +
                  reader1_->display_name() + " record " + std::to_string(reader1_->records()));
    return got1;
  }
  if (!reader2_) return got1;
  const bool got2 = reader2_->next(slot.mates);
  if (got1 && !got2)
    throw fewer_reads(2, reader2_->display_name(), reader2_->records(), reader1_->display_name());
  if (!got1 && got2)
    throw fewer_reads(1, reader1_->display_name(), reader1_->records(), reader2_->display_name());
  return got1;
}

}  // namespace seqfuse::preprocess
