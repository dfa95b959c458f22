#include "core/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "core/error.hpp"

namespace seqfuse {
namespace {

constexpr std::size_t kBufferBytes = std::size_t{1} << 20;

// Temporary paths still to be removed if a signal ends the process. The
// handler may only call async-signal-safe functions, so the paths live in
// fixed storage: a slot is claimed by one OutputFile, and armed once its
// path is complete so the handler never reads a half-written path.
constexpr int kCleanupSlots = 32;
constexpr std::size_t kMaxPath = 4096;
std::array<std::array<char, kMaxPath>, kCleanupSlots> g_cleanup_paths;
std::array<std::atomic<bool>, kCleanupSlots> g_slot_claimed;
std::array<std::atomic<bool>, kCleanupSlots> g_slot_armed;

extern "C" void remove_temporaries_and_reraise(int sig) {
  for (int i = 0; i < kCleanupSlots; ++i)
    if (g_slot_armed[i].load()) ::unlink(g_cleanup_paths[i].data());
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void install_signal_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction action {};
      action.sa_handler = remove_temporaries_and_reraise;
      sigemptyset(&action.sa_mask);
      ::sigaction(sig, &action, nullptr);
    }
  });
}

int claim_cleanup_slot(const std::string& path) {
  if (path.size() >= kMaxPath) return -1;
  install_signal_handlers();
  for (int i = 0; i < kCleanupSlots; ++i) {
    if (g_slot_claimed[i].exchange(true)) continue;
    std::memcpy(g_cleanup_paths[i].data(), path.c_str(), path.size() + 1);
    g_slot_armed[i].store(true);
    return i;
  }
  return -1;  // more outputs than slots: still removed on errors, not on signals
}

void release_cleanup_slot(int slot) {
  if (slot < 0) return;
  g_slot_armed[slot].store(false);
  g_slot_claimed[slot].store(false);
}

std::string errno_text() {
  return std::strerror(errno);
}

}  // namespace

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  buffer_.reserve(kBufferBytes);
  if (is_stdout()) {
    fd_ = STDOUT_FILENO;
    return;
  }
  if (path_.empty()) throw UsageError("output path is empty");
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw Error("cannot write '" + path_ + "': it is a directory");
  if (::stat(path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    // /dev/null, a FIFO, /dev/stdout: written through, never replaced by a rename.
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) throw Error("cannot open output '" + path_ + "': " + errno_text());
    return;
  }

  const auto slash = path_.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path_.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path_ : path_.substr(slash + 1);
  std::string pattern = dir + "." + base + ".seqfuse-XXXXXX";
  fd_ = ::mkstemp(pattern.data());
  if (fd_ < 0) throw Error("cannot create output '" + path_ + "': " + errno_text());
  temp_path_ = pattern;
  cleanup_slot_ = claim_cleanup_slot(temp_path_);
  // mkstemp creates 0600; give the final file the usual umask-based mode.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  (void)::fchmod(fd_, 0666 & ~mask);
}

OutputFile::~OutputFile() {
  const bool written_through = temp_path_.empty();  // stdout, a device or a pipe
  if (written_through && !committed_) {
    try {
      flush();  // what was produced so far belongs to the reader
    } catch (...) {
    }
  }
  if (fd_ >= 0 && !is_stdout()) ::close(fd_);
  if (!committed_ && !written_through) ::unlink(temp_path_.c_str());
  release_cleanup_slot(cleanup_slot_);
}

void OutputFile::write(std::string_view bytes) {
  if (committed_) throw Error("internal: write to '" + path_ + "' after commit");
  if (buffer_.size() + bytes.size() > kBufferBytes) flush();
  if (bytes.size() >= kBufferBytes) {
    // Large blocks (a 3 GB .bwt body) go straight from the caller's memory.
    write_through(bytes);
    return;
  }
  buffer_.append(bytes);
}

void OutputFile::flush() {
  try {
    write_through(buffer_);
  } catch (...) {
    buffer_.clear();
    throw;
  }
  buffer_.clear();
}

void OutputFile::write_through(std::string_view bytes) {
  const char* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string what = is_stdout() ? "standard output" : "'" + path_ + "'";
      throw Error("cannot write " + what + ": " + errno_text());
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

void OutputFile::commit() {
  flush();
  committed_ = true;
  if (temp_path_.empty()) return;  // written through; a device or pipe is closed on destruction
  if (::close(fd_) != 0) {
    fd_ = -1;
    committed_ = false;
    throw Error("cannot write '" + path_ + "': " + errno_text());
  }
  fd_ = -1;
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    committed_ = false;
    throw Error("cannot rename output onto '" + path_ + "': " + errno_text());
  }
  release_cleanup_slot(cleanup_slot_);
  cleanup_slot_ = -1;
}

}  // namespace seqfuse
