#include "core/report.hpp"

#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>

#include "gpu/trace.hpp"

namespace seqfuse {

std::string si_number(double value) {
  static constexpr std::array<const char*, 5> kPrefix = {"", " k", " M", " G", " T"};
  std::size_t p = 0;
  while (value >= 1000.0 && p + 1 < kPrefix.size()) {
    value /= 1000.0;
    ++p;
  }
  char text[32];
  const char* fmt = value >= 100 ? "%.0f%s" : value >= 10 ? "%.1f%s" : "%.2f%s";
  std::snprintf(text, sizeof text, fmt, value, kPrefix[p]);
  return text;
}

std::string si_quantity(double amount, std::string_view unit) {
  std::string text = si_number(amount);
  if (text.back() >= '0' && text.back() <= '9') text += ' ';
  text += unit;
  return text;
}

std::string per_second(double amount, double seconds, std::string_view unit) {
  return si_quantity(seconds > 0 ? amount / seconds : 0.0, unit);
}

std::string rate(double amount, double seconds, std::string_view unit) {
  return per_second(amount, seconds, unit) + "/s";
}

Reporter::Reporter(std::string subcommand, bool quiet)
    : subcommand_(std::move(subcommand)), quiet_(quiet), terminal_(::isatty(STDERR_FILENO) == 1) {}

void Reporter::progress(std::string_view text) {
  if (quiet_ || !terminal_) return;
  const auto now = std::chrono::steady_clock::now();
  if (progress_shown_ && now - last_progress_ < std::chrono::milliseconds(200)) return;
  last_progress_ = now;
  std::fprintf(stderr, "\r\033[Kseqfuse %s: %.*s", subcommand_.c_str(),
               static_cast<int>(text.size()), text.data());
  std::fflush(stderr);
  progress_shown_ = true;
}

void Reporter::clear_progress() {
  if (!progress_shown_) return;
  std::fputs("\r\033[K", stderr);
  progress_shown_ = false;
}

std::string printable_line(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string line;
  line.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f) {
      line += c;
    } else if (c == '\n' || c == '\r') {
      line += ' ';  // a message of several lines reads as one
    } else {
      line += "\\x";
      line += kHex[byte >> 4];
      line += kHex[byte & 15];
    }
  }
  return line;
}

void Reporter::warn(std::string_view text) {
  if (quiet_) return;
  clear_progress();
  const std::string line = printable_line(text);
  std::fprintf(stderr, "seqfuse %s: warning: %s\n", subcommand_.c_str(), line.c_str());
}

void Reporter::summary(std::string_view what, double seconds, std::string_view throughput) {
  if (quiet_) return;
  clear_progress();
  std::fprintf(stderr, "seqfuse %s: %.*s in %.3f s", subcommand_.c_str(),
               static_cast<int>(what.size()), what.data(), seconds);
  if (!throughput.empty())
    std::fprintf(stderr, " (%.*s)", static_cast<int>(throughput.size()), throughput.data());
  std::fputc('\n', stderr);
}

namespace {
const Stopwatch program_clock;  // constructed before main()
const bool tracing = std::getenv("SEQFUSE_TRACE") != nullptr;
// The kernel layer's phase marks join this timeline (gpu/trace.hpp).
[[maybe_unused]] const bool kernel_layer_traced = (gpu::set_trace_sink(&trace), true);
}  // namespace

namespace {

// Seconds since the process started (exec), from /proc/self/stat's start
// time (clock ticks since boot, field 22) and CLOCK_BOOTTIME: what the
// loader and static initialisers took before program_clock began. Negative
// where unreadable (not Linux).
double process_age_seconds() {
  std::ifstream stat("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const std::size_t after_name = text.rfind(')');  // the name may hold spaces
  if (after_name == std::string::npos) return -1;
  std::size_t at = after_name + 2;  // field 3
  for (int field = 3; field < 22 && at < text.size(); ++field) at = text.find(' ', at) + 1;
  timespec now{};
  const long ticks = ::sysconf(_SC_CLK_TCK);
  if (at == 0 || at >= text.size() || ticks <= 0 || ::clock_gettime(CLOCK_BOOTTIME, &now) != 0)
    return -1;
  const double started = std::strtod(text.c_str() + at, nullptr) / static_cast<double>(ticks);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9 - started;
}

}  // namespace

void trace(std::string_view phase) {
  if (!tracing) return;
  static std::atomic<bool> first{true};
  if (first.exchange(false)) {  // once: where the trace clock's zero lies
    const double before = process_age_seconds() - program_clock.seconds();
    std::fprintf(stderr, "seqfuse trace: the process started %.2f s before this clock\n", before);
  }
  std::fprintf(stderr, "seqfuse trace: %.3f s %.*s\n", program_clock.seconds(),
               static_cast<int>(phase.size()), phase.data());
}

}  // namespace seqfuse
