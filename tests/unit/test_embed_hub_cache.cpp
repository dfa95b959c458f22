#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "core/error.hpp"
#include "models/hub_cache.hpp"
#include "test_temp_dir.hpp"

namespace fs = std::filesystem;
using seqfuse::models::EnvLookup;

namespace {

EnvLookup env_of(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const char* name) {
    const auto it = values.find(name);
    return it == values.end() ? std::string() : it->second;
  };
}

// A hub cache entry as huggingface_hub lays it out: refs/main names the
// commit, snapshots/<commit>/ holds the files.
fs::path add_snapshot(const fs::path& root, const std::string& folder, const std::string& commit,
                      bool with_ref) {
  const fs::path model = root / folder;
  fs::create_directories(model / "snapshots" / commit);
  std::ofstream(model / "snapshots" / commit / "config.json") << "{}";
  if (with_ref) {
    fs::create_directories(model / "refs");
    std::ofstream(model / "refs" / "main") << commit;
  }
  return model / "snapshots" / commit;
}

}  // namespace

TEST_CASE("hub cache roots follow transformers' order", "[embed][hub]") {
  using seqfuse::models::hub_cache_roots;
  CHECK(hub_cache_roots(env_of({{"HF_HUB_CACHE", "/a"}, {"HF_HOME", "/b"}})) ==
        std::vector<fs::path>{"/a"});
  CHECK(hub_cache_roots(env_of({{"HF_HOME", "/b"}, {"HOME", "/h"}})) ==
        std::vector<fs::path>{"/b/hub"});
  CHECK(hub_cache_roots(env_of({{"XDG_CACHE_HOME", "/x"}, {"HOME", "/h"}})) ==
        std::vector<fs::path>{"/x/huggingface/hub"});
  CHECK(hub_cache_roots(env_of({{"HOME", "/h"}})) ==
        std::vector<fs::path>{"/h/.cache/huggingface/hub"});
  CHECK(hub_cache_roots(env_of({})).empty());
}

TEST_CASE("hub model ids", "[embed][hub]") {
  using seqfuse::models::is_hub_model_id;
  for (const char* good :
       {"facebook/esm2_t6_8M_UR50D", "Rostlab/prot_bert", "bert-base-uncased", "a.b/c-d"})
    CHECK(is_hub_model_id(good));
  for (const char* bad :
       {"", "/abs/path", "./m", "../m", "a/b/c", "a/", "/a", "a/..", "-x/y", "a b/c", "a/.hidden"})
    CHECK_FALSE(is_hub_model_id(bad));
}

TEST_CASE("a model id resolves to its cached snapshot", "[embed][hub]") {
  seqfuse::test::TempDir dir;
  const fs::path root = dir.path() / "hub";
  const fs::path esm = add_snapshot(root, "models--facebook--esm2_t6_8M_UR50D", "abc123", true);
  // An older snapshot beside it: refs/main picks the current one.
  add_snapshot(root, "models--facebook--esm2_t6_8M_UR50D", "old999", false);
  const fs::path bert = add_snapshot(root, "models--bert-base-uncased", "f00", false);
  const EnvLookup env = env_of({{"HF_HUB_CACHE", root.string()}});
  using seqfuse::models::resolve_model_folder;
  CHECK(resolve_model_folder("facebook/esm2_t6_8M_UR50D", env) == esm.string());
  CHECK(resolve_model_folder("bert-base-uncased", env) == bert.string());
  // A folder that exists is taken as it is, even when it looks like an id.
  CHECK(resolve_model_folder(dir.path().string(), env) == dir.path().string());
  // Not a folder, not cached: one line naming where it looked.
  CHECK_THROWS_WITH(resolve_model_folder("facebook/esm2_t33_650M_UR50D", env),
                    Catch::Contains("does not exist, and no Hugging Face cache holds "
                                    "'facebook/esm2_t33_650M_UR50D' (looked in " +
                                    root.string()));
  // A path that is no id goes to the model loader unchanged (its own error).
  CHECK(resolve_model_folder("./nothing/here", env) == "./nothing/here");
  // Two snapshots and no refs/main: no guess.
  add_snapshot(root, "models--org--two", "c1", false);
  add_snapshot(root, "models--org--two", "c2", false);
  CHECK_THROWS_WITH(resolve_model_folder("org/two", env), Catch::Contains("2 snapshots"));
}
