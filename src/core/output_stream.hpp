// A std::ostream writing into an OutputFile, for writers that take an
// ostream (the bwt index files): the file still appears whole or not at all,
// on OutputFile::commit(). OutputFile buffers, so this forwards unbuffered.
#pragma once

#include <ostream>
#include <streambuf>
#include <string_view>

#include "core/output_file.hpp"

namespace seqfuse {

class OutputFileStream : public std::ostream {
 public:
  explicit OutputFileStream(OutputFile& file) : std::ostream(nullptr), buffer_(file) {
    rdbuf(&buffer_);
    exceptions(std::ios::badbit);  // a failed write rethrows OutputFile's error
  }

 private:
  class Buffer : public std::streambuf {
   public:
    explicit Buffer(OutputFile& file) : file_(file) {}

   protected:
    std::streamsize xsputn(const char* s, std::streamsize n) override {
      file_.write(std::string_view(s, static_cast<std::size_t>(n)));
      return n;
    }
    int_type overflow(int_type c) override {
      if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
      const char byte = traits_type::to_char_type(c);
      file_.write(std::string_view(&byte, 1));
      return c;
    }

   private:
    OutputFile& file_;
  };
  Buffer buffer_;
};

}  // namespace seqfuse
