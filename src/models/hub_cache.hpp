// --model NAME: a Hugging Face model id ("facebook/esm2_t6_8M_UR50D") found in
// the local hub cache, as `huggingface-cli download` or transformers left it,
// without any network access. A --model that is a folder is taken as it is.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace seqfuse::models {

// Reads an environment variable; empty when unset (a test passes its own).
using EnvLookup = std::function<std::string(const char* name)>;

// The hub cache folders to look in, in the order transformers uses them:
// HF_HUB_CACHE, else HF_HOME/hub, else XDG_CACHE_HOME/huggingface/hub, else
// HOME/.cache/huggingface/hub.
[[nodiscard]] std::vector<std::filesystem::path> hub_cache_roots(const EnvLookup& env);

// Whether `text` has the form of a hub model id: NAME or ORG/NAME, letters,
// digits and . _ - only, neither part starting with '.' or '-'.
[[nodiscard]] bool is_hub_model_id(const std::string& text);

// The snapshot folder of model `id` under `root` (models--ORG--NAME/
// snapshots/<the commit refs/main names>, or the only snapshot there is);
// nullopt when the cache has no such model. Throws Error when it has several
// snapshots and no refs/main to choose between them.
[[nodiscard]] std::optional<std::filesystem::path> find_hub_snapshot(
    const std::filesystem::path& root, const std::string& id);

// --model as given when it names an existing path; else the cached
// snapshot of that model id. Throws Error naming the folders looked in when
// it is neither.
[[nodiscard]] std::string resolve_model_folder(const std::string& model, const EnvLookup& env);
[[nodiscard]] std::string resolve_model_folder(const std::string& model);

}  // namespace seqfuse::models
