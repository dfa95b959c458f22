// GzipStream: plain (non-BGZF) gzip decompressed by ISA-L's igzip, which
// inflates two to three times faster than zlib on one core. A gzip file made
// by `gzip` is one deflate stream that cannot be split across threads, so
// this single-core rate is what bounds every gzip input; BGZF stays with
// htslib, whose worker threads decompress its independent blocks.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

extern "C" {
struct hFILE;
struct inflate_state;
}

namespace seqfuse::io {

class GzipStream {
 public:
  // Reads compressed bytes from `file` (not owned) from its current position.
  GzipStream(hFILE* file, std::string display_name);
  ~GzipStream();
  GzipStream(const GzipStream&) = delete;
  GzipStream& operator=(const GzipStream&) = delete;

  // Up to `capacity` decompressed bytes; fewer only at the end, 0 after it.
  // Concatenated members (as `cat a.gz b.gz` makes) read as one stream.
  // Throws seqfuse::Error "<name>: truncated or corrupt gzip input" for a
  // cut-off or damaged stream (CRC and length are checked per member) and
  // "<name>: read error: <reason>" when the file cannot be read.
  [[nodiscard]] std::size_t read(char* dst, std::size_t capacity);

 private:
  // Moves unread input to the front and reads more; false at end of file.
  bool refill();
  // After a member ends: true and ready when another member follows.
  bool start_next_member();
  [[noreturn]] void throw_corrupt() const;

  hFILE* file_;
  std::string display_name_;
  std::unique_ptr<inflate_state> state_;
  std::vector<unsigned char> input_;
  bool end_of_file_ = false;
  bool finished_ = false;
};

}  // namespace seqfuse::io
