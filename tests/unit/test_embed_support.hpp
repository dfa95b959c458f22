// Shared by the embed tests: the fixture checkpoints, their transformers
// references (reference.tsv) and vector comparisons.
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "test_data.hpp"

namespace seqfuse::models::test {

inline const std::vector<std::string>& fixture_names() {
  static const std::vector<std::string> names = {"esm_hd16_fp32_hub", "esm_hd24_fp16_saved",
                                                 "esm_hd32_bf16_hub", "esm_hd64_fp32_saved"};
  return names;
}

// ProtBERT-layout fixtures (scripts/make-bert-fixtures.py): saved (BertModel,
// pooler), bert.-prefixed with gamma/beta and cls heads, sharded fp16,
// pytorch_model.bin.
inline const std::vector<std::string>& bert_fixture_names() {
  static const std::vector<std::string> names = {"bert_hd16_fp32_saved", "bert_hd32_bf16_prefixed",
                                                 "bert_hd24_fp16_sharded", "bert_hd64_fp32_bin"};
  return names;
}

inline std::filesystem::path embed_data_dir() {
  return seqfuse::test::data_dir() / "embed";
}

// reference.tsv: id <TAB> what <TAB> v1 ... keyed by (id, what).
using Reference = std::map<std::pair<std::string, std::string>, std::vector<double>>;

inline Reference read_reference(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  Reference rows;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string id, what, value;
    std::getline(fields, id, '\t');
    std::getline(fields, what, '\t');
    std::vector<double> values;
    while (std::getline(fields, value, '\t')) values.push_back(std::stod(value));
    rows[{id, what}] = std::move(values);
  }
  return rows;
}

struct Agreement {
  double cosine = 0;
  double relative_error = 0;  // |got - want| / |want|
};

inline Agreement compare(const float* got, const std::vector<double>& want) {
  double dot = 0, got_norm = 0, want_norm = 0, diff = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    dot += got[i] * want[i];
    got_norm += double(got[i]) * got[i];
    want_norm += want[i] * want[i];
    diff += (got[i] - want[i]) * (got[i] - want[i]);
  }
  // A zero vector (a <mask> token's row of the embedding output: token
  // dropout zeroes it) agrees only with an exact zero; cosine is undefined there.
  if (want_norm == 0) return got_norm == 0 ? Agreement{1, 0} : Agreement{0, 1};
  return {dot / std::sqrt(got_norm * want_norm), std::sqrt(diff / want_norm)};
}

// Worst agreement over the vectors compared, and the first few failures.
struct AgreementTally {
  AgreementTally(double min_cos, double max_error)
      : min_cosine(min_cos), max_relative_error(max_error) {}

  double min_cosine;
  double max_relative_error;
  double worst_cosine = 1, worst_relative_error = 0;
  std::size_t compared = 0;
  std::vector<std::string> failures;

  void add(const std::string& what, const float* got, const std::vector<double>& want) {
    const Agreement a = compare(got, want);
    worst_cosine = std::min(worst_cosine, a.cosine);
    worst_relative_error = std::max(worst_relative_error, a.relative_error);
    ++compared;
    if (!(a.cosine >= min_cosine) || !(a.relative_error <= max_relative_error)) {
      std::ostringstream text;
      text << what << ": cosine " << std::setprecision(10) << a.cosine << ", relative error "
           << a.relative_error;
      if (failures.size() < 5) failures.push_back(text.str());
    }
  }
  void add_reference(const std::string& id, const std::string& what, const float* got,
                     const Reference& reference) {
    const auto it = reference.find({id, what});
    if (it == reference.end()) {
      failures.push_back(id + " " + what + ": no reference row");
      return;
    }
    add(id + " " + what, got, it->second);
  }
  // Against another engine's floats (the CPU engine), vector by vector.
  void add_engine(const std::string& what, const float* got, const float* want, std::size_t n) {
    add(what, got, std::vector<double>(want, want + n));
  }
  void print(const std::string& label) const {
    std::cout << label << ": worst cosine " << std::setprecision(15) << worst_cosine
              << " (1 - cosine = " << std::setprecision(3) << 1 - worst_cosine
              << "), worst relative error " << worst_relative_error << " over " << compared
              << " vectors\n";
  }
  void check() const {
    INFO((failures.empty() ? std::string() : failures.front()));
    CHECK(failures.empty());
    CHECK(compared > 0);
  }
};

}  // namespace seqfuse::models::test
