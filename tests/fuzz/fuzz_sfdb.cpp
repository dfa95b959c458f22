// The search database reader (align-sw / align-nw TARGET given as .sfdb):
// header, section bounds, checksums, offsets and codes. Odd-sized inputs get
// every checksum made right first (reseal_search_db), so mutations reach the
// structural checks behind them; even-sized ones test the checksums. Once a
// database opens, every record's name and codes must lie inside the file and
// every code inside the alphabet, as the engines assume.
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "align/search_db.hpp"
#include "core/error.hpp"
#include "core/output_file.hpp"
#include "fuzz_support.hpp"

using namespace seqfuse;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const RunScope run;
  std::vector<std::uint8_t> bytes(data, data + size);
  if (size % 2 == 1) align::reseal_search_db(bytes);
  const fuzz::MemFile file(bytes.data(), bytes.size());
  try {
    const align::SearchDb db(file.path(), 1);
    const align::SearchDbInfo& info = db.info();
    if (db.offsets().size() != info.records + 1 || db.codes().size() != info.residues) std::abort();
    std::uint64_t residues = 0, name_bytes = 0;
    for (std::size_t k = 0; k < info.records; ++k) {
      const align::Codes codes =
          db.codes().subspan(db.offsets()[k], db.offsets()[k + 1] - db.offsets()[k]);
      for (const std::uint8_t c : codes)
        if (c >= info.letters.size()) std::abort();
      residues += codes.size();
      name_bytes += db.name(k).size();
    }
    if (residues != info.residues || name_bytes != db.names().size()) std::abort();
  } catch (const Error&) {
  }
  return 0;
}
