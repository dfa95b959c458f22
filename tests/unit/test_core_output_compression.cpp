// Text outputs written as BGZF (core/output_file.hpp): a ".gz" name or
// --compress, the bytes back through htslib equal to what was written, the
// same whole-or-nothing rule as plain outputs, binary outputs untouched.
#include <htslib/bgzf.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "core/error.hpp"
#include "core/output_file.hpp"
#include "test_temp_dir.hpp"

namespace fs = std::filesystem;
using seqfuse::OutputFile;
using seqfuse::OutputKind;
using seqfuse::TextCompression;
using seqfuse::test::slurp;
using seqfuse::test::TempDir;

namespace {

// Restores the process-wide settings a test changes.
struct CompressionSettings {
  TextCompression saved = seqfuse::text_compression();
  ~CompressionSettings() { seqfuse::text_compression() = saved; }
};

std::string inflate(const std::string& path) {
  BGZF* fp = bgzf_open(path.c_str(), "r");
  REQUIRE(fp != nullptr);
  CHECK(bgzf_compression(fp) == 2);  // BGZF, not plain gzip
  std::string text;
  char chunk[4096];
  for (ssize_t n; (n = bgzf_read(fp, chunk, sizeof chunk)) > 0;)
    text.append(chunk, static_cast<std::size_t>(n));
  CHECK(bgzf_check_EOF(fp) == 1);  // the end-of-file block is there
  bgzf_close(fp);
  return text;
}

std::string lines(int n) {
  std::string text;
  for (int i = 0; i < n; ++i) text += "query" + std::to_string(i) + "\ttarget\t" + "42\n";
  return text;
}

}  // namespace

TEST_CASE("a text output named .gz is BGZF, on one thread or many", "[core][output]") {
  const CompressionSettings keep;
  const TempDir dir;
  const std::string text = lines(200000);  // several 64 KiB blocks, past the 1 MiB buffer
  for (const int threads : {1, 3}) {
    seqfuse::text_compression().threads = threads;
    const std::string path = (dir.path() / ("out" + std::to_string(threads) + ".tsv.gz")).string();
    OutputFile out(path, OutputKind::text);
    CHECK(out.compressed());
    out.write(text.substr(0, 1000));
    out.write(text.substr(1000));  // one large write, straight through
    out.commit();
    CHECK(inflate(path) == text);
  }
}

TEST_CASE("--compress applies to any text name; binary outputs stay plain", "[core][output]") {
  const CompressionSettings keep;
  const TempDir dir;
  seqfuse::text_compression().always = true;
  seqfuse::text_compression().level = 1;
  const std::string text_path = (dir.path() / "hits.tsv").string();
  const std::string binary_path = (dir.path() / "index.bwt.gz").string();
  {
    OutputFile text(text_path, OutputKind::text);
    OutputFile binary(binary_path);
    text.write("a\tb\n");
    binary.write("raw");
    text.commit();
    binary.commit();
  }
  CHECK(inflate(text_path) == "a\tb\n");
  CHECK(slurp(binary_path) == "raw");
}

TEST_CASE("a failed compressed output leaves nothing; an empty one is valid", "[core][output]") {
  const CompressionSettings keep;
  const TempDir dir;
  const std::string path = (dir.path() / "x.txt.gz").string();
  {
    OutputFile out(path, OutputKind::text);
    out.write(lines(1000));
  }  // never committed
  CHECK(std::distance(fs::directory_iterator(dir.path()), {}) == 0);
  {
    OutputFile out(path, OutputKind::text);
    out.commit();
  }
  CHECK(inflate(path).empty());
  CHECK(seqfuse::compresses_text("a.gz", {}));
  CHECK_FALSE(seqfuse::compresses_text("a.gzip", {}));
  CHECK_FALSE(seqfuse::compresses_text(".gz", {}));
}
