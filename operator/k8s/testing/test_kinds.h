#pragma once
// Custom resources as the CRDs declare them, for the k8s layer's own tests (the real kinds are in
// crds/types/kinds.h, above this layer).

#include "operator/k8s/resource.h"

namespace rdmastack::k8s::testing {

inline const ResourceType& TestPool() {
  static const ResourceType type{"rdmastack.io", "v1alpha1", "GatewayPool", "gatewaypools", true};
  return type;
}

inline const ResourceType& TestNodeReport() {
  static const ResourceType type{"rdmastack.io", "v1alpha1", "RdmaNode", "rdmanodes", false};
  return type;
}

}  // namespace rdmastack::k8s::testing
