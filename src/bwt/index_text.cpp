#include "bwt/index_text.hpp"

namespace seqfuse::bwt {

std::span<const std::uint8_t> IndexText::codes() {
  if (!both_strands_) return reference_.bases;
  if (!strands_) strands_ = bwt::both_strands(reference_, threads_);
  return *strands_;
}

std::span<const char> IndexText::pac() {
  if (!pac_) pac_ = pac_bytes(reference_, threads_);
  return *pac_;
}

}  // namespace seqfuse::bwt
