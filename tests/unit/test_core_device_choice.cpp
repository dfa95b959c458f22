#include <catch2/catch.hpp>

#include "core/device_choice.hpp"
#include "core/error.hpp"

using seqfuse::DeviceSpec;

TEST_CASE("device specs parse", "[core]") {
  CHECK(seqfuse::parse_device_spec("auto").kind == DeviceSpec::Kind::kAuto);
  CHECK(seqfuse::parse_device_spec("cpu").kind == DeviceSpec::Kind::kCpu);
  CHECK(seqfuse::parse_device_spec("gpu").index == -1);
  const auto g3 = seqfuse::parse_device_spec("gpu:3");
  CHECK(g3.kind == DeviceSpec::Kind::kGpu);
  CHECK(g3.index == 3);
  for (const char* bad : {"", "GPU", "gpu:", "gpu:-1", "gpu:1x", "cuda", "gpu:99999999999"})
    CHECK_THROWS_AS(seqfuse::parse_device_spec(bad), seqfuse::UsageError);
}

TEST_CASE("device specs resolve against the devices found", "[core]") {
  using seqfuse::resolve_device;
  CHECK_FALSE(resolve_device(seqfuse::parse_device_spec("auto"), 0).gpu);
  CHECK(resolve_device(seqfuse::parse_device_spec("auto"), 2).gpu);
  CHECK_FALSE(resolve_device(seqfuse::parse_device_spec("cpu"), 2).gpu);
  CHECK(resolve_device(seqfuse::parse_device_spec("gpu:1"), 2).index == 1);
  CHECK_THROWS_WITH(resolve_device(seqfuse::parse_device_spec("gpu"), 0),
                    "--device gpu: no GPU found (see 'seqfuse info')");
  CHECK_THROWS_WITH(resolve_device(seqfuse::parse_device_spec("gpu:3"), 0),
                    "--device gpu:3: no GPU found (see 'seqfuse info')");
  CHECK_THROWS_WITH(resolve_device(seqfuse::parse_device_spec("gpu:2"), 2),
                    "--device gpu:2: only 2 GPU(s) found");
}

TEST_CASE("thread count 0 means every hardware thread", "[core]") {
  CHECK(seqfuse::resolve_threads(3) == 3);
  CHECK(seqfuse::resolve_threads(0) >= 1);
}
