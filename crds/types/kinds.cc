#include "crds/types/kinds.h"

#include <cstdio>
#include <cstdlib>

namespace rdmastack::crd {

namespace kinds {
const k8s::ResourceType& GatewayPool() {
  static const k8s::ResourceType type{"rdmastack.io", "v1alpha1", "GatewayPool", "gatewaypools",
                                      true};
  return type;
}
const k8s::ResourceType& ClientProfile() {
  static const k8s::ResourceType type{"rdmastack.io", "v1alpha1", "ClientProfile", "clientprofiles",
                                      true};
  return type;
}
const k8s::ResourceType& RdmaNode() {
  static const k8s::ResourceType type{"rdmastack.io", "v1alpha1", "RdmaNode", "rdmanodes", false};
  return type;
}
}  // namespace kinds

const k8s::ResourceRegistry& Registry() {
  static const k8s::ResourceRegistry registry = [] {
    k8s::ResourceRegistry r = k8s::ResourceRegistry::BuiltIn();
    for (const auto* type : {&kinds::GatewayPool(), &kinds::ClientProfile(), &kinds::RdmaNode()}) {
      // Only a clash with a built-in kind is refused: a programming error, found by any test.
      if (Status s = r.Add(*type); !s.ok()) {
        std::fprintf(stderr, "crd::Registry: %s\n", s.ToString().c_str());
        std::abort();
      }
    }
    return r;
  }();
  return registry;
}

}  // namespace rdmastack::crd
