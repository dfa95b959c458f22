// Output that appears whole or not at all, and never destroys a file the
// run reads. Rules, in one place:
// - A regular file (or a path that does not exist yet) is written to a
//   temporary file beside its target and renamed over it by commit(). A
//   run that fails, throws or is ended by a catchable terminating signal
//   (HUP, INT, TERM, PIPE, XFSZ, XCPU, USR1, USR2, ALRM, VTALRM) leaves no
//   partial file.
// - A symbolic link is written through: the temporary goes beside the file
//   it points to, the rename replaces that file, and the link stays.
// - "-", /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N write to
//   the descriptor this process already holds; devices and FIFOs are
//   opened and written directly. Nothing to rename, and no sidecar files
//   (written_through() tells writers that would make one).
// - An output that is the same file (device and inode, links followed) as
//   a registered input or as another live output, or that has the same
//   normalised path as another output not created yet, is refused with
//   `output 'X' is the same file as input 'Y'` before anything is written.
//   "-" and non-regular files are never compared.
// - A text output (OutputKind::text) whose path ends in ".gz", or any text
//   output while --compress is on (stdout too), is written as BGZF through
//   htslib's threaded writer: gzip-compatible, indexable with bgzip -r.
//   Binary outputs (bwt index files, npy, h5, k-mer databases) never are.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

struct BGZF;  // htslib's

namespace seqfuse {

// What the user asked of text outputs: set once by the command line
// (--compress, --compress-level, -t) before a subcommand runs.
struct TextCompression {
  bool always = false;  // --compress: BGZF whatever the name ("-" included)
  int level = -1;       // 0-9; -1: zlib's default (6)
  int threads = 0;      // compression threads; 0: cpu_budget()
};
[[nodiscard]] TextCompression& text_compression();
// Whether a text output at path is written as BGZF under compression.
[[nodiscard]] bool compresses_text(const std::string& path, const TextCompression& compression);

enum class OutputKind { binary, text };

// Records a file this run reads (a sequence input, model file, matrix,
// k-mer database, reference): outputs may not be it. Called where each
// subcommand takes its inputs, before or after its outputs are opened:
// whichever comes second is checked. "-" and anything but an existing
// regular file are ignored, and so is a call while no RunScope lives.
// Throws UsageError when a live output is the file.
void register_input(const std::string& path);

// Unlinks every temporary output file now (async-signal-safe): for a fatal
// signal handler that cannot return, such as the SIGBUS of a mapped input
// (core/mapped_input.hpp).
void remove_temporary_outputs_now() noexcept;

// One run: each run function (run_align, run_bwt, ...) opens one first.
// Inputs are recorded while one lives and forgotten when the outermost one
// ends, so a process that runs several jobs (the unit tests) never holds an
// output against an earlier job's input, or reads a stale inode as one.
class RunScope {
 public:
  RunScope();
  ~RunScope();
  RunScope(const RunScope&) = delete;
  RunScope& operator=(const RunScope&) = delete;
};

class OutputFile {
 public:
  // Creates the temporary file at once, so an unwritable or refused target
  // fails before any work starts. Throws seqfuse::Error naming the path
  // (UsageError when the target is an input or another output).
  // A text output may be compressed (text_compression() and a ".gz" name).
  explicit OutputFile(std::string path, OutputKind kind = OutputKind::binary);
  ~OutputFile();  // removes the temporary file unless committed
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(std::string_view bytes);
  void write(const void* data, std::size_t size) {
    write(std::string_view(static_cast<const char*>(data), size));
  }
  // Flushes and renames onto the target path. Nothing may be written after.
  void commit();

  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  [[nodiscard]] bool is_stdout() const noexcept { return path_ == "-"; }
  // True for "-", a descriptor name, a device or a FIFO: bytes go straight
  // there, and there is no folder to put a sidecar file in.
  [[nodiscard]] bool written_through() const noexcept { return temp_path_.empty(); }
  [[nodiscard]] bool compressed() const noexcept { return bgzf_ != nullptr; }

 private:
  void open_target();
  void open_descriptor(int fd);
  void start_compression(const TextCompression& compression);
  void finish_compression();
  void flush();
  void write_through(std::string_view bytes);  // every byte, unbuffered

  std::string path_;       // as the user gave it (messages)
  std::string target_;     // links followed: where the rename goes
  std::string temp_path_;  // empty when written through
  int fd_ = -1;
  int cleanup_slot_ = -1;
  bool registered_ = false;
  bool committed_ = false;
  BGZF* bgzf_ = nullptr;  // text written as BGZF: bytes go through it to fd_
  std::string buffer_;
};

}  // namespace seqfuse
