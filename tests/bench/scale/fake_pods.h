#pragma once
// Fake application Pods for the informer scale benchmark: one per node, about 4 KB as the API
// server returns it once kwok has given it a status (two containers with env, probes, mounts and
// resources, the service-account token volume the API server adds, owner reference, tolerations).

#include "operator/k8s/json_object.h"

namespace rdmastack::bench {

// Pod number `index` in `ns`, bound to `node` (spec.nodeName: the scheduler is not involved).
k8s::JsonObject FakePod(int index, const std::string& ns, const std::string& node);

}  // namespace rdmastack::bench
