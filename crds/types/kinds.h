#pragma once
// The API package's kinds: where the API server serves each of rdmastack's custom resources
// (crds/*.yaml declare the same group, versions, plurals and scopes; kinds_test reads them back).

#include "operator/k8s/resource.h"

namespace rdmastack::crd {

namespace kinds {
const k8s::ResourceType& GatewayPool();
const k8s::ResourceType& ClientProfile();
const k8s::ResourceType& RdmaNode();
}  // namespace kinds

// The built-in kinds plus ours: what a caller that names objects by apiVersion and kind (a
// manifest applied in a test, the plugin) looks them up in.
const k8s::ResourceRegistry& Registry();

}  // namespace rdmastack::crd
