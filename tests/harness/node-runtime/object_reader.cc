#include "tests/harness/node-runtime/object_reader.h"

#include "operator/k8s/api_error.h"
#include "operator/k8s/client.h"
#include "operator/k8s/config.h"

namespace rdmastack::sim {
namespace {

StatusOr<k8s::JsonObject> GetObject(k8s::Client& client, const k8s::ResourceType& type,
                                    std::string_view ns, std::string_view name,
                                    std::string_view kind_word) {
  StatusOr<k8s::JsonObject> obj = client.Get(type, ns, name);
  if (!obj.ok() && obj.status().code() == StatusCode::kNotFound) {
    return NotFoundError(std::string(kind_word) + " \"" + std::string(name) + "\" not found");
  }
  return obj;
}

}  // namespace

StatusOr<DataMap> ApiObjectReader::ConfigMap(std::string_view ns, std::string_view name) {
  RDMASTACK_ASSIGN_OR_RETURN(k8s::JsonObject cm,
                             GetObject(client_, k8s::kinds::ConfigMap(), ns, name, "configmap"));
  DataMap data = cm.GetStringMap({"data"});
  for (const auto& [key, encoded] : cm.GetStringMap({"binaryData"})) {
    RDMASTACK_ASSIGN_OR_RETURN(data[key], k8s::DecodeBase64(encoded));
  }
  return data;
}

StatusOr<DataMap> ApiObjectReader::Secret(std::string_view ns, std::string_view name) {
  RDMASTACK_ASSIGN_OR_RETURN(k8s::JsonObject secret,
                             GetObject(client_, k8s::kinds::Secret(), ns, name, "secret"));
  DataMap data;
  for (const auto& [key, encoded] : secret.GetStringMap({"data"})) {
    RDMASTACK_ASSIGN_OR_RETURN(data[key], k8s::DecodeBase64(encoded));
  }
  for (const auto& [key, value] : secret.GetStringMap({"stringData"})) data[key] = value;
  return data;
}

}  // namespace rdmastack::sim
