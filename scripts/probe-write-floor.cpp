// How fast this machine can copy two FASTQ files from the page cache into
// fresh files (issue 17's copy floor): whatever trims them must at least
// read every input byte and write nearly every one. Three ways, each the
// median of three runs, outputs removed before each:
//   write   one thread a file, write() from the mapped input in 4 MiB pieces
//           (what `cat in >out` does, as seqfuse's writer does);
//   pwrite  THREADS / 2 threads a file, each writing its own 4 MiB pieces at
//           their offsets (positioned writes from many threads);
//   mmap    the output sized first, mapped, and THREADS / 2 threads a file
//           copying pieces into it (no write() at all).
// Build and run (the inputs on the file system the outputs go to):
//   g++ -O2 -std=c++20 -pthread -o probe-write-floor scripts/probe-write-floor.cpp
//   ./probe-write-floor 16 r1.fq r2.fq
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr std::size_t kPiece = std::size_t{4} << 20;

[[noreturn]] void die(const std::string& what) {
  std::perror(what.c_str());
  std::exit(1);
}

struct Input {
  const char* data = nullptr;
  std::size_t size = 0;
};

Input map_input(const char* path) {
  const int fd = open(path, O_RDONLY);
  if (fd < 0) die(path);
  struct stat st {};
  if (fstat(fd, &st) != 0) die(path);
  Input in;
  in.size = static_cast<std::size_t>(st.st_size);
  void* p = mmap(nullptr, in.size, PROT_READ, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) die(path);
  close(fd);
  in.data = static_cast<const char*>(p);
  return in;
}

int create_output(const std::string& path) {
  unlink(path.c_str());
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) die(path);
  return fd;
}

void copy_write(const Input& in, const std::string& out) {
  const int fd = create_output(out);
  for (std::size_t at = 0; at < in.size; at += kPiece) {
    const std::size_t n = std::min(kPiece, in.size - at);
    if (write(fd, in.data + at, n) != static_cast<ssize_t>(n)) die(out);
  }
  close(fd);
}

// Calls copy(at, n) for every 4 MiB piece of `in` from `threads` threads,
// each taking the next piece not yet taken.
template <class Copy>
void by_pieces(const Input& in, unsigned threads, Copy copy) {
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (std::size_t at; (at = next.fetch_add(kPiece)) < in.size;)
        copy(at, std::min(kPiece, in.size - at));
    });
  for (auto& t : pool) t.join();
}

void copy_pwrite(const Input& in, const std::string& out, unsigned threads) {
  const int fd = create_output(out);
  by_pieces(in, threads, [&](std::size_t at, std::size_t n) {
    if (pwrite(fd, in.data + at, n, static_cast<off_t>(at)) != static_cast<ssize_t>(n)) die(out);
  });
  close(fd);
}

void copy_mmap(const Input& in, const std::string& out, unsigned threads) {
  const int fd = create_output(out);
  if (ftruncate(fd, static_cast<off_t>(in.size)) != 0) die(out);
  void* p = mmap(nullptr, in.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) die(out);
  char* to = static_cast<char*>(p);
  by_pieces(in, threads,
            [&](std::size_t at, std::size_t n) { std::memcpy(to + at, in.data + at, n); });
  munmap(p, in.size);
  close(fd);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: probe-write-floor THREADS IN1 IN2\n");
    return 2;
  }
  const unsigned per_file = std::max(1u, static_cast<unsigned>(std::atoi(argv[1])) / 2);
  const Input in[2] = {map_input(argv[2]), map_input(argv[3])};
  const std::string out[2] = {std::string(argv[2]) + ".floor-copy",
                              std::string(argv[3]) + ".floor-copy"};
  const char* names[] = {"write", "pwrite", "mmap"};
  for (int method = 0; method < 3; ++method) {
    std::vector<double> runs;
    for (int run = 0; run < 3; ++run) {
      unlink(out[0].c_str());
      unlink(out[1].c_str());
      const auto start = std::chrono::steady_clock::now();
      std::vector<std::thread> files;
      for (int f = 0; f < 2; ++f)
        files.emplace_back([&, f] {
          if (method == 0) copy_write(in[f], out[f]);
          if (method == 1) copy_pwrite(in[f], out[f], per_file);
          if (method == 2) copy_mmap(in[f], out[f], per_file);
        });
      for (auto& t : files) t.join();
      runs.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(runs.begin(), runs.end());
    std::printf("%-6s %u thread(s) a file: %.3f %.3f %.3f s, median %.3f s (%.2f GB/s)\n",
                names[method], method == 0 ? 1u : per_file, runs[0], runs[1], runs[2], runs[1],
                static_cast<double>(in[0].size + in[1].size) / runs[1] / 1e9);
  }
  unlink(out[0].c_str());
  unlink(out[1].c_str());
  return 0;
}
