#include "controllers/common/node_pod_policy.h"

#include <algorithm>

namespace rdmastack::controllers {

void ApplyNodePodPolicy(const NodePodPolicy& policy, const std::vector<std::string>& extra,
                        k8s::JsonBuilder* pod_spec) {
  std::vector<std::string> names;
  for (const auto* list : {&policy.image_pull_secrets, &extra}) {
    for (const std::string& name : *list) {
      if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) {
        names.push_back(name);
      }
    }
  }
  for (const std::string& name : names) {
    k8s::JsonBuilder ref;
    ref.SetString({"name"}, name);
    pod_spec->Append({"imagePullSecrets"}, ref);
  }
  if (!policy.priority_class_name.empty()) {
    pod_spec->SetString({"priorityClassName"}, policy.priority_class_name);
  }
}

}  // namespace rdmastack::controllers
