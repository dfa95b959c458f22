// run_part_pipeline with stand-in steps: the order the GPU search's parts
// keep (uploads one at a time, at most two parts on the device, hits merged
// in part order per chunk), failures and early stops.
#include <catch2/catch.hpp>
#include <chrono>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "align/part_pipeline.hpp"

namespace {

using seqfuse::align::PartSteps;
using seqfuse::align::run_part_pipeline;

// Steps that log what ran, check the pipeline's promises as they go, and
// take random short times so that the threads interleave differently.
struct Recorder {
  std::mutex mutex;
  std::vector<std::string> log;
  std::vector<int> state;               // by part: 0 waiting, 1 built, 2 released
  std::vector<std::size_t> kept;        // by part: chunks kept
  int resident = 0, most_resident = 0;  // parts built and not released
  int building = 0, most_building = 0;
  std::mt19937 rng{7};
  std::vector<std::string> broken;  // promises seen broken

  explicit Recorder(std::size_t parts) : state(parts, 0), kept(parts, 0) {}

  void nap() {
    int ms = 0;
    {
      const std::lock_guard lock(mutex);
      ms = static_cast<int>(rng() % 3);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  }
  void note(const std::string& what) {
    const std::lock_guard lock(mutex);
    log.push_back(what);
  }
  void breaks(bool broken_if, const std::string& what) {
    if (!broken_if) return;
    const std::lock_guard lock(mutex);
    broken.push_back(what);
  }

  PartSteps steps() {
    PartSteps s;
    s.build = [this](std::size_t p) {
      {
        const std::lock_guard lock(mutex);
        most_building = std::max(most_building, ++building);
        if (p > 0 && state[p - 1] == 0) broken.push_back("part built before the one before it");
        if (p > 1 && state[p - 2] != 2) broken.push_back("three parts on the device");
      }
      nap();
      const std::lock_guard lock(mutex);
      --building;
      state[p] = 1;
      most_resident = std::max(most_resident, ++resident);
    };
    s.score = [this](std::size_t p, std::size_t c) {
      nap();
      note("score " + std::to_string(p) + "." + std::to_string(c));
    };
    s.keep = [this](std::size_t p, std::size_t c) {
      {
        const std::lock_guard lock(mutex);
        if (p > 0 && kept[p - 1] <= c) broken.push_back("chunk kept before the part before");
        if (kept[p] != c) broken.push_back("chunks of a part kept out of order");
      }
      nap();
      const std::lock_guard lock(mutex);
      kept[p] = c + 1;
    };
    s.release = [this](std::size_t p) {
      const std::lock_guard lock(mutex);
      state[p] = 2;
      --resident;
    };
    return s;
  }
};

}  // namespace

TEST_CASE("part pipeline: one upload at a time, two parts at most, hits merged in part order",
          "[align]") {
  for (const std::size_t parts : {1, 2, 5}) {
    for (const std::size_t chunks : {0, 1, 3}) {
      INFO(parts << " parts, " << chunks << " chunks");
      Recorder r(parts);
      run_part_pipeline(parts, chunks, r.steps());
      CHECK(r.broken.empty());
      for (const std::string& b : r.broken) UNSCOPED_INFO(b);
      CHECK(r.most_building == 1);
      CHECK(r.most_resident <= 2);
      CHECK(r.resident == 0);
      for (std::size_t p = 0; p < parts; ++p) {
        CHECK(r.state[p] == 2);
        CHECK(r.kept[p] == chunks);
      }
      CHECK(r.log.size() == parts * chunks);
    }
  }
}

TEST_CASE("part pipeline: a failing step ends the run with its error, every part released",
          "[align]") {
  for (const std::string step : {"build", "score", "keep"}) {
    INFO(step);
    Recorder r(4);
    PartSteps s = r.steps();
    const auto fail_on_part_2 = [](std::size_t p) {
      if (p == 2) throw std::runtime_error("part 2 failed");
    };
    if (step == "build") {
      s.build = [inner = s.build, fail_on_part_2](std::size_t p) {
        fail_on_part_2(p);
        inner(p);
      };
    } else if (step == "score") {
      s.score = [inner = s.score, fail_on_part_2](std::size_t p, std::size_t c) {
        fail_on_part_2(p);
        inner(p, c);
      };
    } else {
      s.keep = [inner = s.keep, fail_on_part_2](std::size_t p, std::size_t c) {
        fail_on_part_2(p);
        inner(p, c);
      };
    }
    CHECK_THROWS_WITH(run_part_pipeline(4, 2, s), "part 2 failed");
    CHECK(r.broken.empty());
    // Part 2's thread ended in its throw; the others that started released
    // theirs (the caller frees what a failed part held).
    CHECK(r.state[0] == 2);
    CHECK(r.state[3] != 1);
  }
}

TEST_CASE("part pipeline: stopping ends the run early", "[align]") {
  Recorder r(4);
  PartSteps s = r.steps();
  int asked = 0;
  std::mutex mutex;
  s.stopping = [&] {
    const std::lock_guard lock(mutex);
    return ++asked > 3;
  };
  run_part_pipeline(4, 3, s);
  CHECK(r.broken.empty());
  CHECK(r.log.size() < 12);
  for (const int state : r.state) CHECK(state != 1);  // nothing left on the device
}
