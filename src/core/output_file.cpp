#include "core/output_file.hpp"

#include <fcntl.h>
#include <htslib/bgzf.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>
#include <optional>
#include <vector>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/path_identity.hpp"

namespace seqfuse {
namespace {

constexpr std::size_t kBufferBytes = std::size_t{1} << 20;

std::string errno_text() {
  return std::strerror(errno);
}

// ---------------------------------------------------------------------------
// Temporary files removed when a signal ends the process.

// Every signal whose default action ends the process and that a user, the
// shell or the kernel sends to a healthy run: a closed pipe (head -1),
// ulimit -f / -t, kill -USR1, alarm(), a job's timeout. SIGPROF is left to
// profilers; fault signals (SEGV, BUS) to the sanitizers and to the
// default core dump (except the SIGBUS of a shrunk mapped input, which
// core/mapped_input.cpp reports and cleans up with remove_temporary_outputs_now).
constexpr std::array kCleanupSignals{SIGHUP,  SIGINT,  SIGTERM, SIGPIPE, SIGXFSZ,
                                     SIGXCPU, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM};

// The handler may only call async-signal-safe functions, so the paths live
// in fixed storage: a slot is claimed by one OutputFile, and armed once its
// path is complete so the handler never reads a half-written path.
constexpr int kCleanupSlots = 32;
constexpr std::size_t kMaxPath = 4096;
std::array<std::array<char, kMaxPath>, kCleanupSlots> g_cleanup_paths;
std::array<std::atomic<bool>, kCleanupSlots> g_slot_claimed;
std::array<std::atomic<bool>, kCleanupSlots> g_slot_armed;

// Only unlink, sigaction and raise: all async-signal-safe. The signal is
// blocked while its handler runs, so the raised one is delivered, with the
// default action, as the handler returns: the process ends as the signal
// says (a shell sees 128 + its number, `head` users see 141 for PIPE).
extern "C" void remove_temporaries_and_reraise(int sig) {
  remove_temporary_outputs_now();
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  ::sigaction(sig, &default_action, nullptr);
  ::raise(sig);
}

// Installed only over the default action: a signal the parent ignores
// (nohup's HUP, a background job's INT, a PIPE ignored by the caller) stays
// ignored, and a handler someone else installed (a test framework, a
// sanitizer, a profiler) stays theirs. Checked again at every new output,
// so a signal whose action went back to the default is covered again.
void install_signal_handlers() {
  static std::mutex mutex;
  const std::lock_guard lock(mutex);
  for (const int sig : kCleanupSignals) {
    struct sigaction current {};
    if (::sigaction(sig, nullptr, &current) != 0) continue;
    if ((current.sa_flags & SA_SIGINFO) != 0 || current.sa_handler != SIG_DFL) continue;
    struct sigaction action {};
    action.sa_handler = remove_temporaries_and_reraise;
    sigemptyset(&action.sa_mask);
    ::sigaction(sig, &action, nullptr);
  }
}

// Blocks the cleanup signals in this thread while it lives (installing the
// handlers first); errno is kept for the caller's message.
class BlockCleanupSignals {
 public:
  BlockCleanupSignals() {
    install_signal_handlers();
    sigset_t set;
    sigemptyset(&set);
    for (const int sig : kCleanupSignals) sigaddset(&set, sig);
    ::pthread_sigmask(SIG_BLOCK, &set, &saved_);
  }
  ~BlockCleanupSignals() {
    const int kept = errno;
    ::pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
    errno = kept;
  }
  BlockCleanupSignals(const BlockCleanupSignals&) = delete;
  BlockCleanupSignals& operator=(const BlockCleanupSignals&) = delete;

 private:
  sigset_t saved_{};
};

int claim_cleanup_slot(const std::string& path) {
  if (path.size() >= kMaxPath) return -1;
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

}  // namespace

void remove_temporary_outputs_now() noexcept {
  for (int i = 0; i < kCleanupSlots; ++i)
    if (g_slot_armed[i].load()) ::unlink(g_cleanup_paths[i].data());
}

namespace {

// ---------------------------------------------------------------------------
// The run's files: inputs recorded by register_input while a RunScope
// lives, outputs while their OutputFile lives.

struct InputEntry {
  std::string path;
  FileId id;
};

struct OutputEntry {
  const OutputFile* owner = nullptr;
  std::string path;          // as given
  std::optional<FileId> id;  // the regular file it replaces, if any
  std::string normal;        // normal_path of the target, links followed
};

struct Registry {
  std::mutex mutex;
  int scopes = 0;  // RunScopes alive
  std::vector<InputEntry> inputs;
  std::vector<OutputEntry> outputs;
};

Registry& registry() {
  static Registry files;
  return files;
}

[[noreturn]] void refuse(const std::string& output, const char* role, const std::string& other) {
  throw UsageError("output '" + output + "' is the same file as " + role + " '" + other + "'");
}

// An input still is the file it was when recorded: a path deleted since, or
// replaced, no longer protects an inode the file system may have reused.
bool still_is(const InputEntry& input, const FileId& id) {
  return input.id == id && regular_file_id(input.path) == id;
}

// Checks a new output against the inputs and the live outputs, then records it.
void add_output(const OutputFile* owner, const std::string& path, const std::string& target) {
  OutputEntry entry{owner, path, regular_file_id(target), normal_path(target)};
  Registry& files = registry();
  const std::lock_guard lock(files.mutex);
  if (entry.id) {
    for (const InputEntry& input : files.inputs)
      if (still_is(input, *entry.id)) refuse(path, "input", input.path);
  }
  for (const OutputEntry& other : files.outputs)
    if ((entry.id && other.id == entry.id) || other.normal == entry.normal)
      refuse(path, "output", other.path);
  files.outputs.push_back(std::move(entry));
}

void remove_output(const OutputFile* owner) {
  Registry& files = registry();
  const std::lock_guard lock(files.mutex);
  std::erase_if(files.outputs, [owner](const OutputEntry& entry) { return entry.owner == owner; });
}

}  // namespace

TextCompression& text_compression() {
  static TextCompression settings;
  return settings;
}

bool compresses_text(const std::string& path, const TextCompression& compression) {
  return compression.always || (path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0);
}

void register_input(const std::string& path) {
  if (path == "-") return;
  const std::optional<FileId> id = regular_file_id(path);
  if (!id) return;  // missing (reported by the reader) or a device, FIFO or stdin
  Registry& files = registry();
  const std::lock_guard lock(files.mutex);
  if (files.scopes == 0) return;
  for (const OutputEntry& output : files.outputs)
    if (output.id == id) refuse(output.path, "input", path);
  files.inputs.push_back({path, *id});
}

RunScope::RunScope() {
  Registry& files = registry();
  const std::lock_guard lock(files.mutex);
  ++files.scopes;
}

RunScope::~RunScope() {
  Registry& files = registry();
  const std::lock_guard lock(files.mutex);
  if (--files.scopes == 0) files.inputs.clear();
}

OutputFile::OutputFile(std::string path, OutputKind kind) : path_(std::move(path)) {
  buffer_.reserve(kBufferBytes);
  const TextCompression& compression = text_compression();
  open_target();
  if (kind != OutputKind::text || !compresses_text(path_, compression)) return;
  try {
    start_compression(compression);
  } catch (...) {  // no destructor runs for a constructor that throws
    if (fd_ >= 0 && !is_stdout()) ::close(fd_);
    if (!written_through()) ::unlink(temp_path_.c_str());
    release_cleanup_slot(cleanup_slot_);
    if (registered_) remove_output(this);
    throw;
  }
}

void OutputFile::open_target() {
  if (is_stdout()) {
    fd_ = STDOUT_FILENO;
    return;
  }
  if (path_.empty()) throw UsageError("output path is empty");
  if (const std::optional<int> fd = named_descriptor(path_)) {
    open_descriptor(*fd);
    return;
  }
  target_ = follow_links(path_);
  struct stat st {};
  if (::stat(target_.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw Error("cannot write '" + path_ + "': it is a directory");
    if (!S_ISREG(st.st_mode)) {
      // /dev/null, a FIFO, a terminal: written through, never replaced by a rename.
      fd_ = ::open(target_.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd_ < 0) throw Error("cannot open output '" + path_ + "': " + errno_text());
      return;
    }
  }

  add_output(this, path_, target_);  // refused here: nothing created yet
  const auto slash = target_.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : target_.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? target_ : target_.substr(slash + 1);
  std::string pattern = dir + "." + base + ".seqfuse-XXXXXX";
  int slot = -1;
  {
    // A signal between mkstemp and arming the slot would leave the file:
    // held back until the slot is armed, then handled as usual.
    const BlockCleanupSignals hold;
    fd_ = ::mkstemp(pattern.data());
    if (fd_ >= 0) slot = claim_cleanup_slot(pattern);
  }
  if (fd_ < 0) {
    const std::string why = errno_text();
    remove_output(this);
    throw Error("cannot create output '" + path_ + "': " + why);
  }
  registered_ = true;
  temp_path_ = pattern;
  cleanup_slot_ = slot;
  // mkstemp creates 0600; give the final file the usual umask-based mode.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  (void)::fchmod(fd_, 0666 & ~mask);
}

// BGZF through a duplicate of fd_ (bgzf_close closes it; fd_ stays ours,
// for the rename and for stdout). One thread compresses inline; more run
// htslib's thread pool, blocks written in order.
void OutputFile::start_compression(const TextCompression& compression) {
  const int fd = ::fcntl(fd_, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) throw Error("cannot open output '" + path_ + "': " + errno_text());
  std::string mode = "w";
  if (compression.level >= 0) mode += std::to_string(std::min(compression.level, 9));
  bgzf_ = ::bgzf_dopen(fd, mode.c_str());
  if (bgzf_ == nullptr) {
    ::close(fd);
    throw Error("cannot start BGZF compression of '" + path_ + "'");
  }
  const unsigned threads =
      compression.threads > 0 ? static_cast<unsigned>(compression.threads) : cpu_budget();
  if (threads > 1 && ::bgzf_mt(bgzf_, static_cast<int>(threads), 256) != 0) {
    finish_compression();
    throw Error("cannot start BGZF compression threads for '" + path_ + "'");
  }
}

// Writes the last blocks and the BGZF end-of-file marker; throws on failure.
void OutputFile::finish_compression() {
  if (bgzf_ == nullptr) return;
  BGZF* const fp = bgzf_;
  bgzf_ = nullptr;
  errno = 0;
  if (::bgzf_close(fp) != 0) {
    const std::string what = is_stdout() ? "standard output" : "'" + path_ + "'";
    throw Error("cannot write " + what + (errno ? ": " + errno_text() : std::string()));
  }
}

// A name for a descriptor this process holds (/dev/stdout, /dev/fd/3) is
// written through a duplicate of that descriptor, not by opening the name:
// - renaming a temporary onto /dev/stdout would replace the symlink (for
//   everyone, as root) and leave the shell's file empty;
// - opening /proc/self/fd/N makes a new open file at offset 0 without the
//   shell's O_APPEND, so `{ echo head; seqfuse ... -o /dev/stdout; } > f`
//   would overwrite "head", and `>>` would overwrite the file's start;
// - opening it fails for a socket (ENXIO), and the link's text for a pipe
//   or a deleted file ("pipe:[123]", "/x (deleted)") is not a path.
// The duplicate shares the shell's offset and flags, as `-o -` does.
void OutputFile::open_descriptor(int fd) {
  fd_ = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (fd_ < 0) throw Error("cannot open output '" + path_ + "': " + errno_text());
}

OutputFile::~OutputFile() {
  if (written_through() && !committed_) {
    try {
      flush();  // what was produced so far belongs to the reader
    } catch (...) {
    }
  }
  try {
    finish_compression();  // a failed run's temporary is removed below
  } catch (...) {
  }
  if (fd_ >= 0 && !is_stdout()) ::close(fd_);
  if (!committed_ && !written_through()) ::unlink(temp_path_.c_str());
  release_cleanup_slot(cleanup_slot_);
  if (registered_) remove_output(this);
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
  if (bgzf_ != nullptr) {
    if (!bytes.empty() && ::bgzf_write(bgzf_, bytes.data(), bytes.size()) < 0) {
      const std::string what = is_stdout() ? "standard output" : "'" + path_ + "'";
      throw Error("cannot write " + what + " (BGZF)" + (errno ? ": " + errno_text() : ""));
    }
    return;
  }
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
  finish_compression();
  committed_ = true;
  if (written_through()) return;  // a descriptor, device or pipe is closed on destruction
  if (::close(fd_) != 0) {
    fd_ = -1;
    committed_ = false;
    throw Error("cannot write '" + path_ + "': " + errno_text());
  }
  fd_ = -1;
  // Onto the link's target: a link given as -o stays a link. An existing
  // file is first renamed aside and removed after: ext4 writes a file's
  // blocks out at once when it is renamed over another (auto_da_alloc), which
  // took 0.42 s for 1.2 GB where this takes 0.05-0.1 s
  // (scripts/probe-rename-cost.py). For an instant the path names no file.
  const std::string aside = temp_path_ + ".replaced";
  struct stat existing {};
  const bool moved_aside = ::stat(target_.c_str(), &existing) == 0 && S_ISREG(existing.st_mode) &&
                           ::rename(target_.c_str(), aside.c_str()) == 0;
  if (::rename(temp_path_.c_str(), target_.c_str()) != 0) {
    const std::string why = errno_text();
    if (moved_aside) (void)::rename(aside.c_str(), target_.c_str());  // the old file back
    committed_ = false;
    throw Error("cannot rename output onto '" + path_ + "': " + why);
  }
  if (moved_aside) (void)::unlink(aside.c_str());
  release_cleanup_slot(cleanup_slot_);
  cleanup_slot_ = -1;
}

}  // namespace seqfuse
