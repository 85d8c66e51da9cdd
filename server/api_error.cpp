#include "server/api_error.h"

#include <nlohmann/json.hpp>

namespace glance::server {

std::string ErrorBody(int status, const std::string& type, const std::string& message, const std::string& param) {
  nlohmann::json e = {{"message", message}, {"type", type}, {"code", status}};
  e["param"] = param.empty() ? nlohmann::json(nullptr) : nlohmann::json(param);
  return nlohmann::json{{"error", e}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace glance::server
