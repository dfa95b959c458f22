// What a run did, in numbers a machine reads: the files it read and wrote,
// its counts, where its time went, the device it ran on. Every run function
// fills the RunFacts of its Reporter as it goes (cheap: a few entries a
// run); `--json FILE` writes them out (core/json_report.hpp). Nothing here
// prints or formats: the summary line on stderr stays the Reporter's.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/device_choice.hpp"

namespace seqfuse {

class RunFacts {
 public:
  struct Phase {
    std::string name;
    double seconds = 0;
  };
  struct Throughput {
    double value = 0;  // per second
    std::string unit;  // "cells/s", "bp/s", "k-mers/s", "tokens/s"
  };

  // Files read ("-" for stdin) and written ("-" for stdout), in the order
  // the run met them; the report adds their sizes once the run is over.
  void input(std::string path) { inputs_.push_back(std::move(path)); }
  void output(std::string path) { outputs_.push_back(std::move(path)); }
  // One named count ("queries", "kmers_distinct"); a key set twice keeps the last value.
  void count(const std::string& key, std::uint64_t value);
  // Ends the phase `name`: it lasted from the previous phase's end (or the
  // start of the run) until now. Names are the stable keys of
  // docs/json-report.md, not the trace lines' free text.
  void phase(std::string name);
  void device(const DeviceChoice& choice, unsigned threads) {
    device_ = choice;
    threads_ = threads;
  }
  void throughput(double amount, double seconds, std::string unit);

  [[nodiscard]] const std::vector<std::string>& inputs() const noexcept { return inputs_; }
  [[nodiscard]] const std::vector<std::string>& outputs() const noexcept { return outputs_; }
  [[nodiscard]] const std::vector<std::pair<std::string, std::uint64_t>>& counts() const noexcept {
    return counts_;
  }
  [[nodiscard]] const std::vector<Phase>& phases() const noexcept { return phases_; }
  [[nodiscard]] const DeviceChoice& device() const noexcept { return device_; }
  [[nodiscard]] unsigned threads() const noexcept { return threads_; }
  [[nodiscard]] const Throughput& throughput() const noexcept { return throughput_; }
  // Since the facts were started (the Reporter's construction).
  [[nodiscard]] double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  double phase_start_ = 0;
  std::vector<std::string> inputs_, outputs_;
  std::vector<std::pair<std::string, std::uint64_t>> counts_;
  std::vector<Phase> phases_;
  DeviceChoice device_;
  unsigned threads_ = 0;
  Throughput throughput_;
};

}  // namespace seqfuse
