// Where batches end, how records are numbered, and that the background
// reader thread recycles batches and shuts down cleanly.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <memory_resource>
#include <set>

#include "core/error.hpp"
#include "io/batch.hpp"
#include "io/batch_reader.hpp"
#include "test_io_support.hpp"

using seqfuse::io::BatchLimits;
using seqfuse::io::BatchReader;
using seqfuse::io::read_all;
using seqfuse::io::SequenceBatch;
using seqfuse::io::SequenceFormat;
namespace t = seqfuse::io::test;

namespace {

// FASTA records named s1..sN with the given sequence lengths.
std::string make_fasta(const std::vector<std::size_t>& lengths) {
  std::string text;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    text += ">s" + std::to_string(i + 1) + "\n" + std::string(lengths[i], 'G') + "\n";
  }
  return text;
}

// Counts what the batches allocate, to show they draw on the given resource.
class CountingResource : public std::pmr::memory_resource {
 public:
  std::size_t allocations() const { return allocations_.load(); }

 private:
  void* do_allocate(std::size_t bytes, std::size_t align) override {
    ++allocations_;
    return std::pmr::new_delete_resource()->allocate(bytes, align);
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t align) override {
    std::pmr::new_delete_resource()->deallocate(p, bytes, align);
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }
  std::atomic<std::size_t> allocations_{0};
};

}  // namespace

TEST_CASE("max_records ends a batch; first_record counts across batches", "[io]") {
  t::ScratchDir dir;
  const std::string path = dir.write("25.fq", t::make_fastq(25));
  const auto run = t::read_batches(path, BatchLimits{.max_records = 10});
  CHECK(run.batch_sizes == std::vector<std::size_t>{10, 10, 5});
  CHECK(run.first_records == std::vector<std::uint64_t>{0, 10, 20});
  CHECK(run.records == t::records_of(read_all(path)));

  const auto exact =
      t::read_batches(dir.write("20.fq", t::make_fastq(20)), BatchLimits{.max_records = 10});
  CHECK(exact.batch_sizes == std::vector<std::size_t>{10, 10});  // no empty third batch
}

TEST_CASE("max_bases ends a batch without exceeding it", "[io]") {
  t::ScratchDir dir;
  // 40+40 = 80, +30 would be 110 > 100, so 30 opens batch 2; 30+60+10 reaches 100
  // exactly and ends it; 100 alone fills batch 3.
  const std::string path = dir.write("b.fa", make_fasta({40, 40, 30, 60, 10, 100, 5}));
  const auto run = t::read_batches(path, BatchLimits{.max_records = 100, .max_bases = 100});
  CHECK(run.batch_sizes == std::vector<std::size_t>{2, 3, 1, 1});
  CHECK(run.batch_bases == std::vector<std::uint64_t>{80, 100, 100, 5});
  CHECK(run.first_records == std::vector<std::uint64_t>{0, 2, 5, 6});
  CHECK(run.records == t::records_of(read_all(path)));
}

TEST_CASE("a record larger than max_bases forms its own batch", "[io]") {
  t::ScratchDir dir;
  const std::string path = dir.write("huge.fa", make_fasta({5, 1000, 5, 5, 2000}));
  const auto run = t::read_batches(path, BatchLimits{.max_records = 100, .max_bases = 50});
  CHECK(run.batch_sizes == std::vector<std::size_t>{1, 1, 2, 1});
  CHECK(run.batch_bases == std::vector<std::uint64_t>{5, 1000, 10, 2000});
  CHECK(run.first_records == std::vector<std::uint64_t>{0, 1, 2, 4});
  CHECK(run.records == t::records_of(read_all(path)));
}

TEST_CASE("zero limits still make progress, one record per batch", "[io]") {
  t::ScratchDir dir;
  const std::string path = dir.write("z.fa", make_fasta({3, 0, 4}));
  const auto run = t::read_batches(path, BatchLimits{.max_records = 0, .max_bases = 0});
  CHECK(run.batch_sizes == std::vector<std::size_t>{1, 1, 1});
  CHECK(run.first_records == std::vector<std::uint64_t>{0, 1, 2});
}

TEST_CASE("many batches through the three recycled buffers", "[io]") {
  t::ScratchDir dir;
  const std::string text = t::make_fastq(5000);
  const std::string path = dir.write("many.fq", text);
  BatchReader reader(path, BatchLimits{.max_records = 7, .max_bases = 400});
  std::set<const SequenceBatch*> distinct;
  std::uint64_t expected_first = 0;
  std::size_t total = 0;
  while (SequenceBatch* batch = reader.next()) {
    distinct.insert(batch);
    CHECK(batch->first_record == expected_first);
    CHECK(batch->size() <= 7);
    CHECK((batch->total_bases() <= 400 || batch->size() == 1));
    CHECK(batch->format == SequenceFormat::fastq);
    expected_first += batch->size();
    total += batch->size();
    batch->bases.assign(3, 'x');  // the caller may scribble on its batch
  }
  CHECK(total == 5000);
  CHECK(distinct.size() <= BatchReader::kBatchesInFlight);
  CHECK(reader.next() == nullptr);  // the end stays the end
}

TEST_CASE("BatchReader stops promptly when the caller stops early", "[io]") {
  t::ScratchDir dir;
  const std::string path = dir.write("big.fq", t::make_fastq(100000));  // ~16 MB
  const auto started = std::chrono::steady_clock::now();
  SECTION("destroyed before the first next()") {
    BatchReader reader(path, BatchLimits{.max_records = 10});
  }
  SECTION("destroyed after one small batch") {
    BatchReader reader(path, BatchLimits{.max_records = 10});
    REQUIRE(reader.next() != nullptr);
  }
  SECTION("destroyed while one batch would take the whole file") {
    BatchReader reader(path, BatchLimits{.max_records = 1u << 30, .max_bases = 1u << 30});
  }
  SECTION("destroyed after an error") {
    const std::string bad = dir.write("bad.fq", "@a\nAC\n+\nI\n");
    BatchReader reader(bad);
    CHECK_THROWS(reader.next());
  }
  // Generous: only a hang or a full parse under sanitizers would take this long.
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(20));
}

TEST_CASE("batches allocate bases and qualities from the given resource", "[io]") {
  t::ScratchDir dir;
  const std::string path = dir.write("r.fq", t::make_fastq(50));
  CountingResource resource;
  {
    BatchReader reader(path, BatchLimits{}, &resource);
    const SequenceBatch* batch = reader.next();
    REQUIRE(batch != nullptr);
    CHECK(batch->bases.get_allocator().resource() == &resource);
    CHECK(batch->quals.get_allocator().resource() == &resource);
  }
  CHECK(resource.allocations() > 0);
  const auto all = read_all(path, &resource);
  CHECK(all.bases.get_allocator().resource() == &resource);
}

TEST_CASE("SequenceBatch: push_back, pop_back, clear keeps capacity", "[io]") {
  SequenceBatch batch;
  CHECK(batch.empty());
  CHECK(batch.total_bases() == 0);
  batch.format = SequenceFormat::fastq;
  batch.push_back("a", "x", "ACGT", "IIII");
  batch.push_back("b", "", "GG", "##");
  CHECK_THROWS_AS(batch.push_back("c", "", "GG", "#"), seqfuse::Error);
  REQUIRE(batch.size() == 2);  // the failed push left nothing behind
  CHECK(t::record_of(batch, 1) == seqfuse::io::SequenceRecord{"b", "", "GG", "##"});
  batch.pop_back();
  CHECK(batch.size() == 1);
  CHECK(batch.total_bases() == 4);
  CHECK(batch.quals.size() == 4);
  CHECK(batch.names == "a");

  const std::size_t capacity = batch.bases.capacity();
  batch.first_record = 9;
  batch.clear();
  CHECK(batch.empty());
  CHECK(batch.first_record == 0);
  CHECK(batch.offsets == std::vector<std::uint64_t>{0});
  CHECK(batch.names.empty());
  CHECK(batch.name_offsets == std::vector<std::uint32_t>{0});
  CHECK(batch.comments.empty());
  CHECK(batch.comment_offsets == std::vector<std::uint32_t>{0});
  CHECK(batch.quals.empty());
  CHECK(batch.bases.capacity() == capacity);

  SequenceBatch fasta;
  CHECK_THROWS_AS(fasta.push_back("a", "", "AC", "II"), seqfuse::Error);
  fasta.push_back("a", "", "AC");
  CHECK(fasta.quality(0).empty());
}
