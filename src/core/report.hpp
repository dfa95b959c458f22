// What a run tells the person at the terminal: progress while it works (only
// when stderr is a terminal), warnings, and one summary line at the end.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "core/run_facts.hpp"

namespace seqfuse {

class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  [[nodiscard]] double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// With SEQFUSE_TRACE set in the environment, prints "seqfuse trace: T s
// <phase>" to stderr, T counted from program start: where a run's time goes,
// without a profiler (the GPU machine has none).
void trace(std::string_view phase);

// "1.23 G" style: value scaled to k, M, G or T with three significant digits.
[[nodiscard]] std::string si_number(double value);
// "48.5 kbp", "500 bp": `amount` SI-scaled, then the unit.
[[nodiscard]] std::string si_quantity(double amount, std::string_view unit);
// "12.3 Mbp/s": `amount` units over `seconds`, SI-scaled.
[[nodiscard]] std::string rate(double amount, double seconds, std::string_view unit);
// "1.23 GCUPS": for units that already mean "per second".
[[nodiscard]] std::string per_second(double amount, double seconds, std::string_view unit);

// `text` made safe for one terminal line: line breaks become spaces, other
// control bytes (escape sequences, NUL, DEL) become \xHH, so a record name, matrix header or
// tensor name holding them can neither break the line nor drive the
// terminal. UTF-8 and other bytes >= 0x80 stay (paths may hold them).
[[nodiscard]] std::string printable_line(std::string_view text);

class Reporter {
 public:
  Reporter(std::string subcommand, bool quiet);

  // Rewrites one status line on a terminal; silent in pipes and with --quiet.
  void progress(std::string_view text);
  // Always shown unless --quiet.
  void warn(std::string_view text);
  // The closing line: "seqfuse <sub>: <what> in <t> s (<throughput>)".
  void summary(std::string_view what, double seconds, std::string_view throughput = {});

  [[nodiscard]] bool quiet() const noexcept { return quiet_; }
  // The run's numbers for --json (core/run_facts.hpp), filled by the run
  // functions beside their summary line.
  [[nodiscard]] RunFacts& facts() noexcept { return facts_; }
  [[nodiscard]] const RunFacts& facts() const noexcept { return facts_; }

 private:
  void clear_progress();

  std::string subcommand_;
  bool quiet_;
  bool terminal_;
  bool progress_shown_ = false;
  std::chrono::steady_clock::time_point last_progress_{};
  RunFacts facts_;
};

}  // namespace seqfuse
