#pragma once
// An error the server answers with: an HTTP status and an OpenAI-style JSON body
// ({"error": {"message", "type", "param", "code"}}), so clients written for OpenAI show it.
#include <stdexcept>
#include <string>

namespace glance::server {

class ApiError : public std::runtime_error {
 public:
  ApiError(int status, std::string type, const std::string& message, std::string param = "")
      : std::runtime_error(message), status_(status), type_(std::move(type)), param_(std::move(param)) {}
  int status() const { return status_; }
  const std::string& type() const { return type_; }    // "invalid_request_error", ...
  const std::string& param() const { return param_; }  // the request field at fault, if any

 private:
  int status_;
  std::string type_;
  std::string param_;
};

// Shorthands for the statuses the server uses.
inline ApiError BadRequest(const std::string& message, const std::string& param = "") {
  return ApiError(400, "invalid_request_error", message, param);
}

std::string ErrorBody(int status, const std::string& type, const std::string& message, const std::string& param = "");
inline std::string ErrorBody(const ApiError& e) { return ErrorBody(e.status(), e.type(), e.what(), e.param()); }

}  // namespace glance::server
