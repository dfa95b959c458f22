#include "core/run_facts.hpp"

#include <algorithm>

namespace seqfuse {

void RunFacts::count(const std::string& key, std::uint64_t value) {
  const auto found = std::find_if(counts_.begin(), counts_.end(),
                                  [&key](const auto& entry) { return entry.first == key; });
  if (found != counts_.end())
    found->second = value;
  else
    counts_.emplace_back(key, value);
}

void RunFacts::phase(std::string name) {
  const double now = seconds();
  phases_.push_back({std::move(name), now - phase_start_});
  phase_start_ = now;
}

void RunFacts::throughput(double amount, double seconds, std::string unit) {
  throughput_ = {seconds > 0 ? amount / seconds : 0.0, std::move(unit)};
}

}  // namespace seqfuse
