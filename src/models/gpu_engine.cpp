// The GPU engine's entry points, compiled only in builds with a GPU backend
// (src/models/CMakeLists.txt); gpu_absent.cpp stands in without one. Each
// family's make_gpu_engine lives with the family (gpu_esm_family.cpp,
// gpu_bert_family.cpp), over the one engine shell (gpu_model_engine.hpp).
#include "models/gpu_engine.hpp"

#include <algorithm>
#include <filesystem>

#include "core/report.hpp"
#include "models/bert_config.hpp"
#include "models/esm_config.hpp"
#include "models/gpu_compute.hpp"
#include "models/model_family.hpp"

namespace seqfuse::models {

bool gpu_engine_built() noexcept {
  return true;
}

void warm_up_gpu_engine(const std::string& model_dir, int device, ComputeType compute) noexcept {
  try {
    // Every family runs the same four GEMMs per layer (gpu_compute.hpp).
    const std::filesystem::path config = std::filesystem::path(model_dir) / "config.json";
    const gpu_embed::ModelShape shape =
        read_model_family(model_dir) == ModelFamily::bert
            ? gpu_embed::model_shape(load_bert_config(config), compute)
            : gpu_embed::model_shape(load_esm_config(config), compute);
    gpu::use_device(std::max(device, 0));
    gpu::nn::warm_up_gemms(
        gpu_embed::layer_gemm_shapes(shape.hidden, shape.intermediate, shape.type));
    trace("embed: GEMM algorithms chosen ahead");
  } catch (...) {  // reported again, with context, by the engine
  }
}

std::unique_ptr<EmbeddingEngine> make_gpu_engine(const ProteinModel& model,
                                                 const GpuEngineOptions& options) {
  return std::visit([&](const auto& m) { return make_gpu_engine(m, options); }, model.weights);
}

}  // namespace seqfuse::models
