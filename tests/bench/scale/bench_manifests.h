#pragma once
// The GatewayPools and ClientProfiles the operator benchmarks apply, as YAML documents: the
// stand-in gateway build on library 1.2.0.68, one pool or profile per label value so that each
// selects its own nodes.

#include <string>

namespace rdmastack::bench {

// "---"-led documents: GatewayPool `name` (in `ns`, "" for kubectl's -n) selecting
// `selector_key: name` with the credentials Secret bench-root and gateway roots
// /lustre/{namespace}-{poolName}-{nodeName}.
std::string GatewayPoolManifest(const std::string& name, const std::string& ns,
                                const std::string& selector_key);
// ClientProfile `name` selecting `selector_key: name`, served by pool `pool` of its namespace.
std::string ClientProfileManifest(const std::string& name, const std::string& selector_key,
                                  const std::string& pool);
// The Secret the pools name (bench-root), with made-up keys.
std::string RootSecretManifest();

}  // namespace rdmastack::bench
