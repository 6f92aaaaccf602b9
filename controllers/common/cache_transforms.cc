#include "controllers/common/cache_transforms.h"

#include "controllers/common/node_label_keys.h"
#include "operator/k8s/json_builder.h"
#include "operator/runtime/informer.h"

namespace rdmastack::controllers {

runtime::Transform NodeLabelsAndOperatorAnnotations() {
  runtime::Transform trim =
      runtime::TrimToFields({{"metadata", "labels"}, {"spec", "unschedulable"}});
  return [trim](k8s::JsonObject node) {
    const std::map<std::string, std::string> annotations = node.Annotations();
    k8s::JsonObject out = trim(std::move(node));
    for (const auto& [key, value] : annotations) {
      if (key.find(kOperatorAnnotationDomain) != std::string::npos) out.SetAnnotation(key, value);
    }
    return out;
  };
}

runtime::Transform NodeLabelsKeptAndOperatorAnnotations(
    std::function<std::shared_ptr<const std::set<std::string>>()> keys) {
  return [all = NodeLabelsAndOperatorAnnotations(), keys = std::move(keys)](k8s::JsonObject node) {
    const std::shared_ptr<const std::set<std::string>> kept = keys();
    return KeepLabels(all(std::move(node)), *kept);
  };
}

runtime::Transform SecretKeysOnly() {
  runtime::Transform trim = runtime::TrimToFields({{"type"}});
  return [trim](k8s::JsonObject object) {
    std::vector<std::string> keys = object.Keys({"data"});
    k8s::JsonBuilder out(trim(std::move(object)));
    for (const auto& k : keys) out.SetString({"data", k}, "");
    return std::move(out).Build();
  };
}

runtime::Transform PodReadiness() {
  return runtime::TrimToFields({{"metadata", "labels"},
                                {"spec", "nodeName"},
                                {"status", "podIP"},
                                {"status", "conditions"},
                                {"status", "containerStatuses"},
                                {"status", "initContainerStatuses"}});
}

runtime::Transform PodPlacement() {
  return runtime::TrimToFields({{"metadata", "labels"}, {"spec", "nodeName"}, {"status", "phase"}});
}

runtime::InformerOptions CachedOptions(const k8s::ResourceType& type, std::string label_selector,
                                       runtime::Transform transform) {
  runtime::InformerOptions o;
  o.type = type;
  o.label_selector = std::move(label_selector);
  o.transform = std::move(transform);
  return o;
}

runtime::Informer& CachedInformer(runtime::Manager& manager, const k8s::ResourceType& type,
                                  std::string label_selector, runtime::Transform transform) {
  return manager.cache().Get(CachedOptions(type, std::move(label_selector), std::move(transform)));
}

}  // namespace rdmastack::controllers
