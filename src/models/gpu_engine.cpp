// The GPU engine's factories, compiled only in builds with a GPU backend
// (src/models/CMakeLists.txt); gpu_absent.cpp stands in without one.
#include "models/gpu_engine.hpp"

#include <algorithm>
#include <filesystem>

#include "core/report.hpp"
#include "models/esm_config.hpp"
#include "models/gpu_bert_engine.hpp"
#include "models/gpu_compute.hpp"
#include "models/gpu_esm_engine.hpp"
#include "models/model_family.hpp"

namespace seqfuse::models {

bool gpu_engine_built() noexcept {
  return true;
}

void warm_up_gpu_engine(const std::string& model_dir, int device, ComputeType compute) noexcept {
  try {
    // Every family runs the same four GEMMs per layer (gpu_compute.hpp).
    const std::filesystem::path folder(model_dir);
    std::size_t hidden = 0, intermediate = 0;
    if (read_model_family(folder) == ModelFamily::bert) {
      const BertConfig config = load_bert_config(folder / "config.json");
      hidden = static_cast<std::size_t>(config.hidden_size);
      intermediate = static_cast<std::size_t>(config.intermediate_size);
    } else {
      const EsmConfig config = load_esm_config(folder / "config.json");
      hidden = static_cast<std::size_t>(config.hidden_size);
      intermediate = static_cast<std::size_t>(config.intermediate_size);
    }
    gpu::use_device(std::max(device, 0));
    const auto shapes = esm_gpu::layer_gemm_shapes(hidden, intermediate, esm_gpu::nn_type(compute));
    gpu::nn::warm_up_gemms(shapes);
    trace("embed: GEMM algorithms chosen ahead");
  } catch (...) {  // reported again, with context, by the engine
  }
}

std::unique_ptr<EmbeddingEngine> make_gpu_engine(const EsmModel& model,
                                                 const GpuEngineOptions& options) {
  return std::make_unique<esm_gpu::GpuEsmEngine>(model, options);
}

std::unique_ptr<EmbeddingEngine> make_gpu_engine(const BertModel& model,
                                                 const GpuEngineOptions& options) {
  return std::make_unique<esm_gpu::GpuBertEngine>(model, options);
}

std::unique_ptr<EmbeddingEngine> make_gpu_engine(const ProteinModel& model,
                                                 const GpuEngineOptions& options) {
  return std::visit([&](const auto& m) { return make_gpu_engine(m, options); }, model.weights);
}

}  // namespace seqfuse::models
