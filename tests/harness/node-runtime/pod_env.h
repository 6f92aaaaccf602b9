#pragma once
// The environment of one container as the kubelet builds it: the image's ENV, the service
// variables, then envFrom and env in order (with $(VAR) expansion), valueFrom resolved through
// the API (ConfigMap and Secret keys) or the pod itself (fieldRef). Failures are what the kubelet
// reports as CreateContainerConfigError.

#include <string>
#include <string_view>

#include "base/status.h"
#include "operator/k8s/json_object.h"
#include "tests/harness/node-runtime/env_list.h"
#include "tests/harness/node-runtime/image_table.h"
#include "tests/harness/node-runtime/object_reader.h"

namespace rdmastack::sim {

// What the downward API can see of a pod on a simulated node.
struct PodFacts {
  const k8s::JsonObject* pod = nullptr;
  std::string host_ip;  // the node's address
  std::string pod_ip;   // the same address: every process of a node shares its network namespace
};

// fieldRef.fieldPath: metadata.{name,namespace,uid}, metadata.labels['k'],
// metadata.annotations['k'], metadata.labels / metadata.annotations (downward API volumes only:
// k="v" lines), spec.{nodeName,serviceAccountName}, status.{hostIP,hostIPs,podIP,podIPs}.
StatusOr<std::string> ResolveFieldRef(const PodFacts& facts, std::string_view field_path);

// `base` holds what comes before the pod's own variables (image ENV, service variables, HOSTNAME).
StatusOr<EnvList> BuildContainerEnv(const PodFacts& facts, const k8s::JsonObject& container,
                                    const EnvList& base, ObjectReader& reader);

}  // namespace rdmastack::sim
