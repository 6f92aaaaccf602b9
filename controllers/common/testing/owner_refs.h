#pragma once
// The controller ownerReference a test puts on an object, as the API server stores it (what
// controllers/common/owned_objects.h goes by).

#include <string>

#include "operator/k8s/json_object.h"
#include "operator/k8s/testing/json_text.h"

namespace rdmastack::controllers::testing {

inline k8s::JsonObject ControllerRef(const std::string& api_version, const std::string& kind,
                                     const std::string& name, const std::string& uid) {
  k8s::JsonObject ref =
      k8s::testing::JsonText(R"({"controller": true, "blockOwnerDeletion": true})");
  (void)ref.SetString({"apiVersion"}, api_version);
  (void)ref.SetString({"kind"}, kind);
  (void)ref.SetString({"name"}, name);
  (void)ref.SetString({"uid"}, uid);
  return ref;
}

}  // namespace rdmastack::controllers::testing
