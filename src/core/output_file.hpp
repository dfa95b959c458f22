// Output that appears whole or not at all: bytes go to a temporary file
// beside the target, renamed over it by commit(). A run that fails, throws
// or is interrupted (SIGINT, SIGTERM, SIGHUP) leaves no partial file.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace seqfuse {

class OutputFile {
 public:
  // `path` "-" means standard output; it and other non-regular files that
  // exist (/dev/null, a FIFO) are written through, with nothing to rename.
  // Creates the temporary file at once, so an unwritable target fails
  // before any work starts. Throws seqfuse::Error naming the path.
  explicit OutputFile(std::string path);
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

 private:
  void flush();
  void write_through(std::string_view bytes);  // every byte, unbuffered

  std::string path_;
  std::string temp_path_;  // empty when written through
  int fd_ = -1;
  int cleanup_slot_ = -1;
  bool committed_ = false;
  std::string buffer_;
};

}  // namespace seqfuse
