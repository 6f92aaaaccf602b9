#include "operator/k8s/testing/server_errors.h"

#include "operator/k8s/api_error.h"
#include "operator/k8s/json_object.h"

namespace rdmastack::k8s::testing {
namespace {

Status ServerError(int code, std::string_view reason, std::string_view message,
                   const ResourceType* type, std::string_view name) {
  JsonObject body;
  body.SetApiVersion("v1");
  body.SetKind("Status");
  (void)body.SetString({"status"}, "Failure");
  (void)body.SetString({"message"}, message);
  (void)body.SetString({"reason"}, reason);
  (void)body.SetInt({"code"}, code);
  if (type != nullptr) {
    (void)body.SetString({"details", "name"}, name);
    (void)body.SetString({"details", "group"}, type->group);
    (void)body.SetString({"details", "kind"}, type->plural);
  }
  return ApiErrorFromResponse(code, body.Serialize()).ToStatus();
}

std::string Quoted(std::string_view name) {
  return "\"" + std::string(name) + "\"";
}

}  // namespace

Status NotFoundFor(const ResourceType& type, std::string_view name) {
  return ServerError(404, "NotFound", type.GroupResource() + " " + Quoted(name) + " not found",
                     &type, name);
}

Status AlreadyExistsFor(const ResourceType& type, std::string_view name) {
  return ServerError(409, "AlreadyExists",
                     type.GroupResource() + " " + Quoted(name) + " already exists", &type, name);
}

Status ConflictFor(const ResourceType& type, std::string_view name, std::string_view why) {
  return ServerError(409, "Conflict",
                     "Operation cannot be fulfilled on " + type.GroupResource() + " " +
                         Quoted(name) + ": " + std::string(why),
                     &type, name);
}

Status InvalidFor(const ResourceType& type, std::string_view name, std::string_view why) {
  return ServerError(422, "Invalid",
                     type.kind + " " + Quoted(name) + " is invalid: " + std::string(why), &type,
                     name);
}

Status BadRequest(std::string_view message) {
  return ServerError(400, "BadRequest", message, nullptr, "");
}

}  // namespace rdmastack::k8s::testing
