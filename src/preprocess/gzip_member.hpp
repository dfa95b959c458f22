// gzip output for fastq-trim: each chunk of formatted reads becomes one gzip
// member, compressed by libdeflate on the worker thread that formatted it;
// members are written in input order, and a file of concatenated members is
// one valid gzip stream (gzip -d, zcat and fastp read it whole).
#pragma once

#include <string>
#include <string_view>

struct libdeflate_compressor;

namespace seqfuse::preprocess {

class GzipCompressor {
 public:
  explicit GzipCompressor(int level);  // fastp's -z, 1 to 9
  ~GzipCompressor();
  GzipCompressor(const GzipCompressor&) = delete;
  GzipCompressor& operator=(const GzipCompressor&) = delete;

  // Replaces `member` with `text` as one gzip member (empty for empty text).
  void compress(std::string_view text, std::string& member);

 private:
  libdeflate_compressor* compressor_ = nullptr;
};

// fastp's rule: an output is gzip when its name ends in ".gz".
[[nodiscard]] bool gzip_output_name(const std::string& path);

}  // namespace seqfuse::preprocess
