#include <catch2/catch.hpp>

#include "core/device_choice.hpp"
#include "core/error.hpp"

#include <string>
#include <vector>

using seqfuse::DeviceSpec;

TEST_CASE("device specs parse", "[core]") {
  CHECK(seqfuse::parse_device_spec("auto").kind == DeviceSpec::Kind::kAuto);
  CHECK(seqfuse::parse_device_spec("cpu").kind == DeviceSpec::Kind::kCpu);
  CHECK(seqfuse::parse_device_spec("gpu").indexes.empty());
  const auto g3 = seqfuse::parse_device_spec("gpu:3");
  CHECK(g3.kind == DeviceSpec::Kind::kGpu);
  CHECK(g3.indexes == std::vector<int>{3});
  CHECK(seqfuse::parse_device_spec("gpu:0,1,3").indexes == std::vector<int>{0, 1, 3});
  CHECK(seqfuse::parse_device_spec("gpu:0,0").indexes == std::vector<int>{0, 0});
  CHECK(seqfuse::parse_device_spec("gpu:all").all);
  for (const char* bad : {"", "GPU", "gpu:", "gpu:-1", "gpu:1x", "cuda", "gpu:99999999999",
                          "gpu:0,", "gpu:,1", "gpu:0,,1", "gpu:all,1", "gpu:ALL", "gpu:0;1"})
    CHECK_THROWS_AS(seqfuse::parse_device_spec(bad), seqfuse::UsageError);
}

TEST_CASE("device specs resolve against the devices found", "[core]") {
  using seqfuse::resolve_device;
  CHECK_FALSE(resolve_device(seqfuse::parse_device_spec("auto"), 0).gpu);
  CHECK(resolve_device(seqfuse::parse_device_spec("auto"), 2).gpu);
  CHECK_FALSE(resolve_device(seqfuse::parse_device_spec("cpu"), 2).gpu);
  CHECK(resolve_device(seqfuse::parse_device_spec("gpu:1"), 2).devices == std::vector<int>{1});
  CHECK(resolve_device(seqfuse::parse_device_spec("auto"), 4).devices == std::vector<int>{0});
  CHECK(resolve_device(seqfuse::parse_device_spec("gpu"), 4).devices == std::vector<int>{0});
  const auto all = resolve_device(seqfuse::parse_device_spec("gpu:all"), 3);
  CHECK(all.devices == std::vector<int>{0, 1, 2});
  CHECK(all.name() == "gpu:0,1,2");
  CHECK(all.workers() == 3);
  CHECK(resolve_device(seqfuse::parse_device_spec("gpu:0,0"), 1).name() == "gpu:0,0");
  CHECK(seqfuse::DeviceChoice{}.name() == "cpu");
  CHECK(seqfuse::DeviceChoice{}.workers() == 0);
  CHECK_THROWS_WITH(resolve_device(seqfuse::parse_device_spec("gpu:0,2"), 2),
                    "--device gpu:0,2: only 2 GPU(s) found");
  CHECK_THROWS_WITH(resolve_device(seqfuse::parse_device_spec("gpu:all"), 0),
                    "--device gpu:all: no GPU found (see 'seqfuse info')");
  std::string many = "gpu:0";
  for (int i = 0; i < 64; ++i) many += ",0";
  CHECK_THROWS_AS(seqfuse::parse_device_spec(many), seqfuse::UsageError);
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
