#include "preprocess/adapter_fasta.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>

#include "core/error.hpp"
#include "core/output_file.hpp"

namespace seqfuse::preprocess {

std::vector<std::string> load_adapter_fasta(const std::string& path) {
  register_input(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open adapter FASTA '" + path + "': " + std::strerror(errno));
  std::map<std::string, std::string> records;
  std::string line, header, seq;
  bool in_record = false;
  const auto finish = [&] {
    if (in_record) records[header] = seq;
  };
  while (std::getline(in, line)) {
    if (!line.empty() && line.front() == '>') {
      finish();
      header = line.substr(1);
      seq.clear();
      in_record = true;
      continue;
    }
    for (char c : line) {
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - ('a' - 'A'));
      if ((c >= 'A' && c <= 'Z') || c == '-' || c == '*') seq += c;
    }
  }
  if (in.bad()) throw Error("cannot read adapter FASTA '" + path + "'");
  finish();
  std::vector<std::string> adapters;
  for (const auto& [name, sequence] : records)
    if (sequence.size() >= 6) adapters.push_back(sequence);
  return adapters;
}

}  // namespace seqfuse::preprocess
