// The bwt domain in a build without a GPU backend (cmake's
// seqfuse_gpu_sources picks this file instead of gpu_engine.cpp).
#include "bwt/engine.hpp"
#include "core/gpu_status.hpp"

namespace seqfuse::bwt {

std::unique_ptr<BwtEngine> make_gpu_bwt_engine(const std::vector<int>&) {
  no_gpu_backend();
}

std::string gpu_bwt_devices_refusal(const std::vector<int>&) {
  no_gpu_backend();
}

}  // namespace seqfuse::bwt
