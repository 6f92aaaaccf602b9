#pragma once
// Reads the ConfigMaps and Secrets a pod refers to (env valueFrom/envFrom and volumes). The node
// runtime reads them from the API server; unit tests hand in a map.

#include <map>
#include <string>
#include <string_view>

#include "base/status.h"

namespace rdmastack::k8s {
class Client;
}

namespace rdmastack::sim {

using DataMap = std::map<std::string, std::string>;  // key -> bytes (Secret values decoded)

class ObjectReader {
 public:
  virtual ~ObjectReader() = default;
  // NotFound when the object does not exist, with the kubelet's wording
  // (configmap "NAME" not found / secret "NAME" not found).
  virtual StatusOr<DataMap> ConfigMap(std::string_view ns, std::string_view name) = 0;
  virtual StatusOr<DataMap> Secret(std::string_view ns, std::string_view name) = 0;
};

// Reads through the API (a GET per call: values are always current).
class ApiObjectReader final : public ObjectReader {
 public:
  explicit ApiObjectReader(k8s::Client& client) : client_(client) {}
  StatusOr<DataMap> ConfigMap(std::string_view ns, std::string_view name) override;
  StatusOr<DataMap> Secret(std::string_view ns, std::string_view name) override;

 private:
  k8s::Client& client_;
};

}  // namespace rdmastack::sim
