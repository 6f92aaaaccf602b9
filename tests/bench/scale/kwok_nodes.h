#pragma once
// kwok-managed Nodes with the RdmaNode their agent would have reported, for benchmarks that run
// the real operator over thousands of nodes without agents: gateway-capable storage nodes and GPU
// client nodes.

#include <map>
#include <string>

#include "crds/types/types.h"
#include "operator/k8s/client.h"

namespace rdmastack::bench {

// A Node kwok manages (annotation kwok.x-k8s.io/node=fake), labelled `labels` and type=kwok, with
// InternalIP `ip` and 64 CPUs, 512Gi, 110 pods and the shared RDMA device resource.
Status CreateKwokNode(k8s::Client& client, const std::string& name,
                      const std::map<std::string, std::string>& labels, const std::string& ip);

// What a gateway-capable storage node's agent reports: Reporting and GatewayCapable, gateway
// verdict Yes, bond0 on mlx5_0 with 100.64.<index/250>.<index%250+1>/16.
crd::RdmaNodeStatus GatewayNodeStatus(int index);

// What the agent on `node` reports for node fixture `fixture` (tests/fixtures/nodes) when it
// serves ClientProfile `profile` ("ns/name"), as connected.
crd::RdmaNodeStatus ClientNodeStatus(const std::string& fixture, const std::string& profile,
                                     const std::string& node);

// Creates the RdmaNode for `node` and applies `status` to it (field manager "bench").
Status CreateRdmaNode(k8s::Client& client, const std::string& node, crd::RdmaNodeStatus status);

}  // namespace rdmastack::bench
