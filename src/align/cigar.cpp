#include "align/cigar.hpp"

#include <cctype>

namespace seqfuse::align {

std::string CigarBuilder::finish(int& matches) const {
  std::string cigar;
  matches = 0;
  std::size_t i = reversed_ops_.size();
  while (i > 0) {
    const char op = reversed_ops_[i - 1];
    std::size_t run = 0;
    while (i > 0 && reversed_ops_[i - 1] == op) {
      ++run;
      --i;
    }
    if (op == '=') matches += static_cast<int>(run);
    cigar += std::to_string(run);
    cigar += op;
  }
  return cigar;
}

Rescore rescore_alignment(AlignMode mode, const ScoringScheme& scheme, Codes query, Codes target,
                          const AlignResult& alignment) {
  Rescore out;
  const auto fail = [&out](std::string problem) {
    out.problem = std::move(problem);
    return out;
  };
  if (!alignment.traced) return fail("no traceback");
  const bool empty = alignment.cigar.empty();
  long qi = empty ? alignment.query_end + 1 : alignment.query_begin;
  long ti = empty ? alignment.target_end + 1 : alignment.target_begin;
  if (mode == AlignMode::global) {
    qi = 0;
    ti = 0;
  } else if (empty && (alignment.query_begin != -1 || alignment.target_begin != -1)) {
    return fail("empty CIGAR with begin positions set");
  }
  if (!empty && (qi < 0 || ti < 0)) return fail("negative begin position");
  long columns = 0;
  long matches = 0;
  std::string_view rest = alignment.cigar;
  while (!rest.empty()) {
    long run = 0;
    std::size_t digits = 0;
    while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) {
      run = run * 10 + (rest[digits] - '0');
      if (run > (1L << 40)) return fail("CIGAR run too long");
      ++digits;
    }
    if (digits == 0 || digits == rest.size() || run == 0) return fail("malformed CIGAR");
    const char op = rest[digits];
    rest.remove_prefix(digits + 1);
    columns += run;
    switch (op) {
      case '=':
      case 'X':
        for (long k = 0; k < run; ++k, ++qi, ++ti) {
          if (qi >= static_cast<long>(query.size()) || ti >= static_cast<long>(target.size())) {
            return fail("CIGAR runs past the end of a sequence");
          }
          const bool same = query[qi] == target[ti];
          if (same != (op == '=')) return fail("'=' or 'X' disagrees with the letters");
          out.score += scheme.score(query[qi], target[ti]);
        }
        if (op == '=') matches += run;
        break;
      case 'I':
        qi += run;
        out.score -= gap_cost(static_cast<int>(run), scheme.gaps());
        break;
      case 'D':
        ti += run;
        out.score -= gap_cost(static_cast<int>(run), scheme.gaps());
        break;
      default:
        return fail(std::string("unknown CIGAR operation '") + op + "'");
    }
  }
  if (qi > static_cast<long>(query.size()) || ti > static_cast<long>(target.size())) {
    return fail("CIGAR runs past the end of a sequence");
  }
  if (qi != alignment.query_end + 1L || ti != alignment.target_end + 1L) {
    return fail("CIGAR does not end at (query_end, target_end)");
  }
  if (mode == AlignMode::global &&
      (qi != static_cast<long>(query.size()) || ti != static_cast<long>(target.size()))) {
    return fail("global CIGAR does not cover both sequences");
  }
  if (matches != alignment.matches || columns != alignment.alignment_length) {
    return fail("matches or alignment_length disagree with the CIGAR");
  }
  return out;
}

}  // namespace seqfuse::align
