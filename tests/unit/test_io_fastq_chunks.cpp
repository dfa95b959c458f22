// FastqChunkReader on the host: the chunks, put back together, are the file
// (plus a final line end where it lacks one), each chunk is whole records,
// and a plain file read by several threads at once gives the same chunks as
// one thread, gzip input the same as plain.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "core/huge_pages.hpp"
#include "io/fastq_chunks.hpp"
#include "test_io_support.hpp"

namespace t = seqfuse::io::test;
using seqfuse::io::FastqChunkReader;
using seqfuse::io::TextBuffer;
using seqfuse::io::whole_records_end;

namespace {

std::vector<std::string> chunks_of(const std::string& path, std::size_t chunk_bytes,
                                   unsigned threads) {
  FastqChunkReader reader(path, chunk_bytes, threads);
  std::vector<std::string> chunks;
  TextBuffer buffer;
  while (reader.next(buffer)) chunks.emplace_back(buffer.data(), buffer.size());
  return chunks;
}

std::string joined(const std::vector<std::string>& chunks) {
  std::string all;
  for (const std::string& c : chunks) all += c;
  return all;
}

}  // namespace

TEST_CASE("FASTQ chunks are whole records and add up to the file", "[io]") {
  t::ScratchDir dir;
  // ~45 MB: several chunks of 16 MiB, each read in slices by up to 16 threads.
  std::string text = t::make_fastq(540000);
  REQUIRE(text.size() > (std::size_t{40} << 20));
  const std::string plain = dir.write("big.fq", text);
  const std::string gz = t::write_gzip(dir.path("big.fq.gz"), text);

  const auto one_thread = chunks_of(plain, std::size_t{16} << 20, 1);
  REQUIRE(one_thread.size() >= 3);
  CHECK(joined(one_thread) == text);
  for (const std::string& chunk : one_thread) {
    CHECK(chunk.front() == '@');
    CHECK(whole_records_end(chunk.data(), chunk.size()) == chunk.size());
  }
  CHECK(chunks_of(plain, std::size_t{16} << 20, 4) == one_thread);
  CHECK(chunks_of(plain, std::size_t{16} << 20, 3) == one_thread);
  CHECK(chunks_of(plain, std::size_t{16} << 20, 16) == one_thread);  // 2 MiB slices
  CHECK(chunks_of(gz, std::size_t{16} << 20, 4) == one_thread);
}

TEST_CASE("FASTQ chunks: a missing final line end is added, CRLF kept", "[io]") {
  t::ScratchDir dir;
  const std::string text = "@a\r\nACGT\r\n+\r\nIIII\r\n@b\nGG\n+\nII";
  for (unsigned threads : {1u, 4u}) {
    CAPTURE(threads);
    CHECK(joined(chunks_of(dir.write("x.fq", text), 16, threads)) == text + "\n");
  }
}

TEST_CASE("FASTQ chunks: a record larger than the chunk size comes whole", "[io]") {
  t::ScratchDir dir;
  const std::string long_read(5000, 'A');
  const std::string text =
      "@a\n" + long_read + "\n+\n" + std::string(5000, 'I') + "\n@b\nC\n+\nI\n";
  const auto chunks = chunks_of(dir.write("long.fq", text), 64, 2);
  CHECK(joined(chunks) == text);
  for (const std::string& chunk : chunks) CHECK(chunk.front() == '@');
}

TEST_CASE("huge-page text buffers are aligned, writable, and grow keeping their bytes", "[io]") {
  TextBuffer buffer(seqfuse::large_buffer_resource());
  buffer.reserve(5 << 20);  // large enough for huge pages (2 MiB and more)
  REQUIRE(reinterpret_cast<std::uintptr_t>(buffer.data()) % (2 << 20) == 0);
  for (std::size_t i = 0; i < buffer.capacity(); ++i) buffer.data()[i] = static_cast<char>(i % 251);
  buffer.resize(buffer.capacity());
  buffer.reserve(33 << 20);  // grows: the old bytes move along
  REQUIRE(reinterpret_cast<std::uintptr_t>(buffer.data()) % (2 << 20) == 0);
  bool same = true;
  for (std::size_t i = 0; i < (std::size_t{5} << 20); ++i)
    same &= buffer.data()[i] == static_cast<char>(i % 251);
  CHECK(same);
  buffer.data()[(std::size_t{33} << 20) - 1] = 'x';  // the whole room is mapped
}
