// seqfuse-simulate-reads --trim-pairs PAIRS LENGTH SEED OUT1 OUT2
// Read pairs for the fastq-trim benchmark, from a random genome (no seed
// file needed): inserts of 30 to 600 bases (mostly 150 to 450), read 1 the
// insert, read 2 its reverse complement, each running into the TruSeq
// adapter past a short insert; 1 in 200 bases substituted; 4% of reads with
// a poly-G tail (a two-colour instrument's no-signal) and 2% with an N run;
// NovaSeq-style binned qualities (F : , #) falling towards the 3' end, and
// Illumina headers ("@A00001:1:FCX:1:1101:x:y 1:N:0:ACGTACGT", a NovaSeq name), which make
// fastp (and seqfuse) turn poly-G trimming on. Fixed seed: the same
// arguments give the same files.
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>

namespace {

const char kAdapter1[] = "AGATCGGAAGAGCACACGTCTGAACTCCAGTCACGGATCGAATCTCGTATGCCGTCTTCTGCTTG";
const char kAdapter2[] = "AGATCGGAAGAGCGTCGTGTAGGGAAAGAGTGTAGATCTCGGTGGTCGCCGTATCATTAAAAAA";

struct Writer {
  explicit Writer(const char* path) : file(std::fopen(path, "wb")) {
    if (file == nullptr) throw std::runtime_error(std::string("cannot write ") + path);
  }
  ~Writer() {
    if (file != nullptr) std::fclose(file);
  }
  void flush_if_full() {
    if (text.size() < (std::size_t{1} << 24)) return;
    flush();
  }
  void flush() {
    if (std::fwrite(text.data(), 1, text.size(), file) != text.size())
      throw std::runtime_error("write failed");
    text.clear();
  }
  std::FILE* file;
  std::string text;
};

}  // namespace

int simulate_trim_pairs(int argc, char** argv) {
  if (argc != 7) {
    std::fprintf(stderr,
                 "usage: seqfuse-simulate-reads --trim-pairs PAIRS LENGTH SEED OUT1.fq OUT2.fq\n");
    return 2;
  }
  const std::size_t pairs = std::stoull(argv[2]);
  const int length = std::stoi(argv[3]);
  std::mt19937_64 rng(std::stoull(argv[4]));
  Writer out1(argv[5]), out2(argv[6]);
  std::uniform_int_distribution<int> base(0, 3), percent(0, 99), per_mille(0, 999);
  std::normal_distribution<double> insert_size(300.0, 90.0);
  const std::string adapters[2] = {kAdapter1, kAdapter2};
  std::string insert, rc, read, qual;
  for (std::size_t p = 0; p < pairs; ++p) {
    int size = static_cast<int>(insert_size(rng));
    size = size < 30 ? 30 : size > 600 ? 600 : size;
    insert.resize(static_cast<std::size_t>(size));
    for (char& c : insert) c = "ACGT"[base(rng)];
    rc.assign(insert.rbegin(), insert.rend());
    for (char& c : rc) c = c == 'A' ? 'T' : c == 'C' ? 'G' : c == 'G' ? 'C' : 'A';
    const std::string header =
        "@A00001:1:FCX:1:1101:" + std::to_string(p % 32768) + ":" + std::to_string(p / 32768);
    for (int side = 0; side < 2; ++side) {
      read = (side == 0 ? insert : rc) + adapters[side];
      while (static_cast<int>(read.size()) < length) read += "ACGT"[base(rng)];
      read.resize(static_cast<std::size_t>(length));
      for (char& c : read)
        if (per_mille(rng) < 5) c = "ACGT"[base(rng)];
      const int feature = percent(rng);
      if (feature < 4) {  // poly-G from a random cycle on
        for (int i = length / 3 + percent(rng) % (length - length / 3); i < length; ++i)
          read[static_cast<std::size_t>(i)] = 'G';
      } else if (feature < 6) {
        const int at = percent(rng) * length / 100;
        for (int i = at; i < length && i < at + 1 + percent(rng) % 8; ++i)
          read[static_cast<std::size_t>(i)] = 'N';
      }
      qual.resize(static_cast<std::size_t>(length));
      for (int i = 0; i < length; ++i) {
        const int roll = percent(rng) + i * 25 / length;  // worse towards the end
        const char q = read[static_cast<std::size_t>(i)] == 'N' ? '#'
                       : roll < 85                              ? 'F'
                       : roll < 95                              ? ':'
                       : roll < 110                             ? ','
                                                                : '#';
        qual[static_cast<std::size_t>(i)] = q;
      }
      Writer& out = side == 0 ? out1 : out2;
      out.text += header;
      out.text += side == 0 ? " 1:N:0:ACGTACGT\n" : " 2:N:0:ACGTACGT\n";
      out.text += read;
      out.text += "\n+\n";
      out.text += qual;
      out.text += '\n';
      out.flush_if_full();
    }
  }
  out1.flush();
  out2.flush();
  return 0;
}
