// The GPU engine's entry points, compiled only in builds with a GPU backend
// (src/models/CMakeLists.txt); gpu_absent.cpp stands in without one. Each
// family's make_gpu_engine lives with the family (gpu_esm_family.cpp,
// gpu_bert_family.cpp, gpu_t5_family.cpp), over the one engine shell
// (gpu_model_engine.hpp).
#include "models/gpu_engine.hpp"

#include <algorithm>
#include <filesystem>

#include "core/report.hpp"
#include "models/bert_config.hpp"
#include "models/esm_config.hpp"
#include "models/gpu_compute.hpp"
#include "models/model_family.hpp"
#include "models/t5_config.hpp"

namespace seqfuse::models {

bool gpu_engine_built() noexcept {
  return true;
}

void warm_up_gpu_engine(const std::string& model_dir, int device, ComputeType compute) noexcept {
  try {
    // The weights' upload streams through pinned blocks: pinned here, beside
    // the input's read, not when the engine needs them.
    gpu::use_device(std::max(device, 0));
    gpu::prepare_staged_copies();
    if (gpu_embed::gemm_backend_for(false) != gpu::nn::GemmBackend::automatic) {
      trace("embed: GEMMs on a kernel of ours (SEQFUSE_EMBED_GEMM): cuBLASLt is not loaded");
      return;
    }
    // Every family runs the same GEMMs per layer but for T5's sizes, biases
    // and feed-forward (gpu_compute.hpp).
    const std::filesystem::path config = std::filesystem::path(model_dir) / "config.json";
    gpu_embed::ModelShape shape;
    switch (read_model_family(model_dir)) {
      case ModelFamily::bert:
        shape = gpu_embed::model_shape(load_bert_config(config), compute);
        break;
      case ModelFamily::t5:
        shape = gpu_embed::model_shape(load_t5_config(config), compute);
        break;
      case ModelFamily::esm:
        shape = gpu_embed::model_shape(load_esm_config(config), compute);
        break;
    }
    gpu::nn::warm_up_gemms(gpu_embed::layer_gemm_shapes(shape));
    trace("embed: GEMM algorithms chosen ahead");
  } catch (...) {  // reported again, with context, by the engine
  }
}

std::unique_ptr<EmbeddingEngine> make_gpu_engine(const ProteinModel& model,
                                                 const GpuEngineOptions& options) {
  return std::visit([&](const auto& m) { return make_gpu_engine(m, options); }, model.weights);
}

}  // namespace seqfuse::models
