#include "controllers/common/node_transform.h"

#include "operator/runtime/informer.h"

namespace rdmastack::controllers {

runtime::Transform NodeLabelsAndOperatorAnnotations() {
  runtime::Transform trim = runtime::TrimToFields({{"metadata", "labels"}});
  return [trim](k8s::JsonObject node) {
    const std::map<std::string, std::string> annotations = node.Annotations();
    k8s::JsonObject out = trim(std::move(node));
    for (const auto& [key, value] : annotations) {
      if (key.find(kOperatorAnnotationDomain) != std::string::npos) out.SetAnnotation(key, value);
    }
    return out;
  };
}

}  // namespace rdmastack::controllers
