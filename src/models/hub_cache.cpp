#include "models/hub_cache.hpp"

#include <cstdlib>
#include <fstream>
#include <system_error>

#include "core/error.hpp"

namespace seqfuse::models {
namespace fs = std::filesystem;
namespace {

bool id_part_ok(const std::string& part) {
  if (part.empty() || part.front() == '.' || part.front() == '-') return false;
  for (const char c : part) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return part.find("..") == std::string::npos;
}

// refs/main holds the commit of the snapshot the default revision is at.
std::string read_ref(const fs::path& file) {
  std::ifstream in(file);
  std::string commit;
  in >> commit;
  return commit;
}

}  // namespace

std::vector<fs::path> hub_cache_roots(const EnvLookup& env) {
  if (const std::string hub = env("HF_HUB_CACHE"); !hub.empty()) return {hub};
  if (const std::string home = env("HF_HOME"); !home.empty()) return {fs::path(home) / "hub"};
  if (const std::string xdg = env("XDG_CACHE_HOME"); !xdg.empty())
    return {fs::path(xdg) / "huggingface" / "hub"};
  if (const std::string home = env("HOME"); !home.empty())
    return {fs::path(home) / ".cache" / "huggingface" / "hub"};
  return {};
}

bool is_hub_model_id(const std::string& text) {
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos) return id_part_ok(text);
  return id_part_ok(text.substr(0, slash)) && id_part_ok(text.substr(slash + 1));
}

std::optional<fs::path> find_hub_snapshot(const fs::path& root, const std::string& id) {
  std::string folder = "models--" + id;
  if (const std::size_t slash = folder.find('/'); slash != std::string::npos)
    folder.replace(slash, 1, "--");
  const fs::path model = root / folder;
  const fs::path snapshots = model / "snapshots";
  std::error_code ec;
  if (!fs::is_directory(snapshots, ec)) return std::nullopt;
  if (const std::string commit = read_ref(model / "refs" / "main"); !commit.empty()) {
    const fs::path snapshot = snapshots / commit;
    if (fs::is_directory(snapshot, ec)) return snapshot;
  }
  std::vector<fs::path> found;
  for (const fs::directory_entry& entry : fs::directory_iterator(snapshots, ec))
    if (entry.is_directory(ec)) found.push_back(entry.path());
  if (found.empty()) return std::nullopt;
  if (found.size() > 1)
    throw Error("the Hugging Face cache holds " + std::to_string(found.size()) + " snapshots of '" +
                id + "' in " + snapshots.string() +
                " and no refs/main to choose one: give --model the snapshot folder");
  return found.front();
}

std::string resolve_model_folder(const std::string& model, const EnvLookup& env) {
  std::error_code ec;
  if (fs::exists(model, ec) || !is_hub_model_id(model)) return model;
  const std::vector<fs::path> roots = hub_cache_roots(env);
  std::string looked;
  for (const fs::path& root : roots) {
    if (const auto snapshot = find_hub_snapshot(root, model)) return snapshot->string();
    looked += (looked.empty() ? "" : ", ") + root.string();
  }
  throw Error("model folder '" + model + "' does not exist, and no Hugging Face cache holds '" +
              model + "' (looked in " +
              (looked.empty() ? std::string("none: HOME is unset") : looked) +
              "; seqfuse never downloads: `huggingface-cli download " + model + "` does)");
}

std::string resolve_model_folder(const std::string& model) {
  return resolve_model_folder(model, [](const char* name) {
    const char* value = std::getenv(name);
    return std::string(value != nullptr ? value : "");
  });
}

}  // namespace seqfuse::models
