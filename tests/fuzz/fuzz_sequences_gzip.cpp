// The same parser behind a valid gzip stream: the fuzzer's bytes are
// compressed first, so mutations reach the record parser through ISA-L's
// inflate (random bytes would mostly stop at the gzip header or CRC).
#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/output_file.hpp"
#include "fuzz_support.hpp"
#include "io/sequence_reader.hpp"

using namespace seqfuse;

namespace {

std::vector<std::uint8_t> gzip(const std::uint8_t* data, std::size_t size) {
  z_stream z{};
  if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  std::vector<std::uint8_t> out(deflateBound(&z, size) + 64);
  z.next_in = const_cast<Bytef*>(data);
  z.avail_in = static_cast<uInt>(size);
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const RunScope run;
  const std::vector<std::uint8_t> packed = gzip(data, size);
  const fuzz::MemFile file(packed.data(), packed.size());
  try {
    io::SequenceReader reader(file.path());
    io::SequenceRecord record;
    std::size_t bases = 0;
    while (reader.next(record)) bases += record.seq.size();
    if (bases > size) std::abort();  // more bases than bytes went in
  } catch (const Error&) {
  }
  return 0;
}
