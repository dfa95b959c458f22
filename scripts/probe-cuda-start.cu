// What a CUDA process pays before and after its work (issue 17's floors):
// the driver's start (cuInit through the runtime's first call), the primary
// context, pinned host memory as fastq-trim's GPU engine takes it, and,
// measured from outside, the teardown after _Exit. Prints one line of
// seconds on the process's own clock (from main), then exits with _Exit as
// seqfuse does. Run it under an outer clock to get the teardown:
//   nvcc -O2 -o /tmp/probe-cuda-start scripts/probe-cuda-start.cu
//   t0=$(date +%s%N); /tmp/probe-cuda-start [PINNED_MIB]; t1=$(date +%s%N)
// (wall minus the printed "exit at" is the loader before main plus the
// teardown; `seqfuse --version` on the same machine bounds the former).
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {
const auto start = std::chrono::steady_clock::now();
double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "probe-cuda-start: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}
}  // namespace

int main(int argc, char** argv) {
  const std::size_t pinned_mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 256;
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");  // loads the driver, cuInit
  const double driver = now();
  check(cudaFree(nullptr), "cudaFree(0)");  // the primary context
  const double context = now();
  void* device = nullptr;
  check(cudaMalloc(&device, std::size_t{1} << 30), "cudaMalloc 1 GiB");
  const double device_memory = now();
  std::vector<void*> pinned;
  for (std::size_t done = 0; done < pinned_mib; done += 16) {  // lanes' buffers, 16 MiB each
    void* p = nullptr;
    check(cudaHostAlloc(&p, std::size_t{16} << 20, cudaHostAllocDefault), "cudaHostAlloc");
    pinned.push_back(p);
  }
  const double host_memory = now();
  check(cudaMemset(device, 0, std::size_t{1} << 30), "cudaMemset");
  if (!pinned.empty())
    check(cudaMemcpy(pinned[0], device, std::size_t{16} << 20, cudaMemcpyDeviceToHost),
          "cudaMemcpy");
  const double used = now();
  std::printf("devices %d; driver started at %.3f s, context at %.3f s, 1 GiB device memory at %.3f s, "
              "%zu MiB pinned at %.3f s, first copy at %.3f s; exit at %.3f s\n",
              count, driver, context, device_memory, pinned_mib, host_memory, used, now());
  std::fflush(stdout);
  std::_Exit(0);
}
