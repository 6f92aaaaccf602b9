#include "tests/bench/scale/bench_manifests.h"

namespace rdmastack::bench {

std::string GatewayPoolManifest(const std::string& name, const std::string& ns,
                                const std::string& selector_key) {
  return "---\napiVersion: rdmastack.io/v1alpha1\nkind: GatewayPool\nmetadata: {name: " + name +
         (ns.empty() ? "" : ", namespace: " + ns) + "}\nspec:\n  nodeSelector: {" + selector_key +
         ": " + name + R"(}
  gateway: {image: "registry.local/rdmastack/vgwrdma:1.8.0-cuobj1", version: 1.8.0}
  serverLibrary: {version: 1.2.0.68, image: "registry.local/rdmastack/libcuobjserver:1.2.0.68"}
  s3: {credentialsSecret: {name: bench-root}}
  rdma: {interface: bond0}
  backend: {posix: {hostPath: /lustre, pathTemplate: "/lustre/{namespace}-{poolName}-{nodeName}"}}
)";
}

std::string ClientProfileManifest(const std::string& name, const std::string& selector_key,
                                  const std::string& pool) {
  return "---\napiVersion: rdmastack.io/v1alpha1\nkind: ClientProfile\nmetadata: {name: " + name +
         "}\nspec:\n  nodeSelector: {" + selector_key + ": " + name +
         "}\n  gatewayPoolRef: {name: " + pool + R"(}
  transport: Auto
  memoryRegistration: Auto
  maxTransferSize: 192Mi
  clientLibrary: {version: 1.2.0.68, image: "registry.local/rdmastack/libcuobjclient:1.2.0.68"}
)";
}

std::string RootSecretManifest() {
  return R"(---
apiVersion: v1
kind: Secret
metadata: {name: bench-root}
stringData: {accessKeyId: bench, secretAccessKey: bench-secret}
)";
}

}  // namespace rdmastack::bench
