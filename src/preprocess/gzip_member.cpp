#include "preprocess/gzip_member.hpp"

#include <libdeflate.h>

#include <new>

#include "core/error.hpp"

namespace seqfuse::preprocess {

GzipCompressor::GzipCompressor(int level) : compressor_(libdeflate_alloc_compressor(level)) {
  if (compressor_ == nullptr) throw std::bad_alloc();
}

GzipCompressor::~GzipCompressor() {
  libdeflate_free_compressor(compressor_);
}

void GzipCompressor::compress(std::string_view text, std::string& member) {
  member.clear();
  if (text.empty()) return;
  member.resize(libdeflate_gzip_compress_bound(compressor_, text.size()));
  const std::size_t size =
      libdeflate_gzip_compress(compressor_, text.data(), text.size(), member.data(), member.size());
  if (size == 0) throw Error("gzip compression failed (output larger than its bound)");
  member.resize(size);
}

bool gzip_output_name(const std::string& path) {
  return path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
}

}  // namespace seqfuse::preprocess
