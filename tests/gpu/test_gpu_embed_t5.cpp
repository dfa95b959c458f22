// The t5 family (ProtT5's encoder) has no GPU engine in this version: on a
// GPU the engine factory refuses it with check_family_device's one line, as
// run_embed does before any device work (the GPU T5 engine replaces this).
#include <catch2/catch.hpp>

#include "../unit/test_embed_support.hpp"
#include "core/error.hpp"
#include "gpu/runtime.hpp"
#include "models/gpu_engine.hpp"
#include "models/protein_model.hpp"

using namespace seqfuse::models;
using namespace seqfuse::models::test;

TEST_CASE("embed GPU t5: the GPU engine factory refuses the t5 family in one line", "[gpu]") {
  REQUIRE(gpu_engine_built());
  REQUIRE_FALSE(seqfuse::gpu::devices().empty());
  const ProteinModel model = load_protein_model(embed_data_dir() / "t5_hd16_fp32_saved", 2);
  REQUIRE(model.family() == ModelFamily::t5);
  GpuEngineOptions options;
  options.device = 0;
  CHECK_THROWS_WITH(make_gpu_engine(model, options),
                    "the t5 family runs on the CPU only in this version; use --device cpu");
}
