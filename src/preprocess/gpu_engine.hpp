// The GPU fastq-trim engine (gpu/preprocess/), seen from src/: plain C++, no
// CUDA types. gpu_engine.cpp defines the engine in builds with a GPU
// backend; gpu_absent.cpp stands in otherwise (gpu_trim_engine_compiled()
// false, make_gpu_trim_engine throws). gpu_trim_refusal is host code in
// every build.
#pragma once

#include <memory>
#include <string>

#include "preprocess/engine.hpp"

namespace seqfuse::preprocess {

[[nodiscard]] bool gpu_trim_engine_compiled() noexcept;

// Empty when the GPU engine can run `plan`; otherwise why not, for the
// warning (--device auto: the CPU engine runs) or the error (--device gpu).
// The GPU engine writes the main outputs only and leaves the host-side
// steps to the CPU engine: UMIs, --fix_mgi_id, --filter_by_index, -D,
// --failed_out, --unpaired1/2 and --overlapped_out.
[[nodiscard]] std::string gpu_trim_refusal(const TrimPlan& plan);

// An engine on device `device_index` (already the calling thread's device).
// Records (pairs) per chunk the GPU engine works best with (the CPU's are
// kCpuChunkRecords); the output does not depend on it.
[[nodiscard]] std::size_t gpu_trim_chunk_records();

[[nodiscard]] std::unique_ptr<TrimEngine> make_gpu_trim_engine(const TrimPlan& plan,
                                                               int device_index);

}  // namespace seqfuse::preprocess
