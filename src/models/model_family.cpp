#include "models/model_family.hpp"

#include "core/error.hpp"
#include "core/output_file.hpp"
#include "core/regular_file.hpp"
#include "models/config_json.hpp"
#include "models/tensor_store.hpp"

namespace seqfuse::models {
namespace {

bool starts_with(std::string_view text, std::string_view head) {
  return text.substr(0, head.size()) == head;
}

}  // namespace

const char* family_name(ModelFamily family) noexcept {
  switch (family) {
    case ModelFamily::bert:
      return "bert";
    case ModelFamily::t5:
      return "t5";
    case ModelFamily::esm:
      break;
  }
  return "esm";
}

std::string supported_families() {
  return "esm (ESM-2), bert (ProtBERT) and t5 (ProtT5's encoder)";
}

ModelFamily family_from_config(std::string_view json_text, const std::string& where) {
  const nlohmann::json config = config_json::parse_object(json_text, where);
  const std::string model_type = config_json::string_or(config, "model_type", "");
  if (model_type == "esm") return ModelFamily::esm;
  if (model_type == "bert") return ModelFamily::bert;
  if (model_type == "t5") return ModelFamily::t5;
  if (!model_type.empty())
    throw Error(where + " describes a '" + model_type + "' model (model_type); seqfuse embed " +
                "supports " + supported_families());
  // No model_type: what transformers would build from `architectures`.
  if (config.contains("architectures") && config["architectures"].is_array())
    for (const auto& name : config["architectures"]) {
      if (!name.is_string()) continue;
      const std::string text = name.get<std::string>();
      if (starts_with(text, "Esm")) return ModelFamily::esm;
      if (starts_with(text, "Bert")) return ModelFamily::bert;
      if (starts_with(text, "T5")) return ModelFamily::t5;
    }
  throw Error(where + " has no model_type (nor architectures naming one); seqfuse embed " +
              "supports " + supported_families());
}

ModelFamily read_model_family(const std::filesystem::path& folder) {
  namespace fs = std::filesystem;
  if (!fs::exists(folder))
    throw Error("model folder " + in_quotes(folder.string()) + " does not exist");
  if (!fs::is_directory(folder))
    throw Error("--model " + in_quotes(folder.string()) +
                " is not a folder (it should hold config.json and model.safetensors)");
  const fs::path config_path = folder / "config.json";
  if (!fs::exists(config_path)) throw Error("no config.json in " + in_quotes(folder.string()));
  register_input(config_path.string());
  return family_from_config(read_regular_file(config_path.string(), "model config"),
                            config_json::quoted_path(config_path.string()));
}

}  // namespace seqfuse::models
