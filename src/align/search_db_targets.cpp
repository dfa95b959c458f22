#include "align/search_db_targets.hpp"

#include "align/db_part.hpp"
#include "core/output_file.hpp"
#include "core/report.hpp"

namespace seqfuse::align {

std::unique_ptr<DbTargets> open_db_targets(const AlignOptions& config, unsigned threads) {
  register_input(config.target);  // -o may not name it
  auto t = std::make_unique<DbTargets>();
  t->db = std::make_unique<const SearchDb>(config.target, threads);
  const SearchDb& db = *t->db;
  trace("align: TARGET database mapped and verified");
  TargetRange range{0, static_cast<std::uint32_t>(db.info().records)};
  if (!config.db_part.empty()) range = db_part_range(db.offsets(), parse_db_part(config.db_part));
  t->first = range.begin;
  const std::span<const std::uint64_t> offsets =
      db.offsets().subspan(range.begin, range.size() + 1);
  const std::uint64_t base = offsets.front();
  t->codes = db.codes().subspan(base, offsets.back() - base);
  if (base == 0) {
    t->offsets = offsets;
  } else {
    t->rebased.reserve(offsets.size());
    for (const std::uint64_t o : offsets) t->rebased.push_back(o - base);
    t->offsets = t->rebased;
  }
  // Names and lengths as a FASTA TARGET's batch holds them, for the writers.
  io::SequenceBatch& names = t->names;
  names.first_record = range.begin;
  names.offsets.assign(t->offsets.begin(), t->offsets.end());
  const std::span<const std::uint32_t> name_offsets =
      db.name_offsets().subspan(range.begin, range.size() + 1);
  const std::uint32_t name_base = name_offsets.front();
  names.names.assign(db.names().substr(name_base, name_offsets.back() - name_base));
  names.name_offsets.clear();
  names.name_offsets.reserve(name_offsets.size());
  for (const std::uint32_t o : name_offsets) names.name_offsets.push_back(o - name_base);
  names.comment_offsets.assign(name_offsets.size(), 0);
  return t;
}

}  // namespace seqfuse::align
