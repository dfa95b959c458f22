#include "models/config_json.hpp"

#include "core/error.hpp"

namespace seqfuse::models::config_json {

using nlohmann::json;

json parse_object(std::string_view json_text, const std::string& where) {
  json config;
  try {
    config = json::parse(json_text);
  } catch (const json::exception& e) {
    throw Error(where + " is not valid JSON (" + e.what() + ")");
  }
  if (!config.is_object()) throw Error(where + " is not a JSON object");
  return config;
}

int positive_int(const json& config, const char* key, const std::string& where) {
  if (!config.contains(key)) throw Error(where + " has no " + key);
  const json& value = config[key];
  if (!value.is_number_integer() || value.get<long long>() <= 0 ||
      value.get<long long>() > (1LL << 30))
    throw Error(where + ": " + key + " must be a positive integer, not " + value.dump());
  return value.get<int>();
}

std::string string_or(const json& config, const char* key, const std::string& fallback) {
  if (!config.contains(key) || config[key].is_null()) return fallback;
  return config[key].is_string() ? config[key].get<std::string>() : config[key].dump();
}

bool bool_or(const json& config, const char* key, bool fallback, const std::string& where) {
  if (!config.contains(key) || config[key].is_null()) return fallback;
  if (!config[key].is_boolean()) throw Error(where + ": " + key + " must be true or false");
  return config[key].get<bool>();
}

double positive_number_or(const json& config, const char* key, double fallback,
                          const std::string& where) {
  if (!config.contains(key) || config[key].is_null()) return fallback;
  if (!config[key].is_number() || !(config[key].get<double>() > 0))
    throw Error(where + ": " + key + " must be a positive number, not " + config[key].dump());
  return config[key].get<double>();
}

std::string quoted_path(const std::string& path) {
  std::string where = "'";  // built in steps: GCC 12 warns (-Wrestrict) on "'" + string
  where += path;
  where += '\'';
  return where;
}

}  // namespace seqfuse::models::config_json
