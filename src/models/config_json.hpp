// Field readers for Hugging Face config.json files, shared by every model
// family's config parser (esm_config.cpp, bert_config.cpp, model_family.cpp):
// each names the file (`where`) and the field in its error.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace seqfuse::models::config_json {

// The parsed object. Throws seqfuse::Error for text that is not a JSON object.
[[nodiscard]] nlohmann::json parse_object(std::string_view json_text, const std::string& where);

// A positive integer field (at most 2^30); throws when absent or otherwise.
[[nodiscard]] int positive_int(const nlohmann::json& config, const char* key,
                               const std::string& where);

// A string field, or `fallback` when absent or null (transformers' defaults).
[[nodiscard]] std::string string_or(const nlohmann::json& config, const char* key,
                                    const std::string& fallback);

[[nodiscard]] bool bool_or(const nlohmann::json& config, const char* key, bool fallback,
                           const std::string& where);

[[nodiscard]] double positive_number_or(const nlohmann::json& config, const char* key,
                                        double fallback, const std::string& where);

// "'PATH'", for the `where` of messages about a file.
[[nodiscard]] std::string quoted_path(const std::string& path);

}  // namespace seqfuse::models::config_json
