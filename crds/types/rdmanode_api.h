#pragma once
// The RdmaNode's API beyond its schema (types.h): its condition types and the labels the operator
// puts on each Node from it (what pools, profiles and users select on). Namespace of the kind, as
// its controller's.

#include <string_view>

namespace rdmastack::rdmanode {

// Condition types (reasons: docs/troubleshooting.md "RdmaNode").
inline constexpr char kReporting[] = "Reporting";
inline constexpr char kGatewayCapable[] = "GatewayCapable";
inline constexpr char kGPUDirectCapable[] = "GPUDirectCapable";
inline constexpr char kHostMemoryCapable[] = "HostMemoryCapable";

// Node labels.
inline constexpr char kGatewayCapableLabel[] = "rdmastack.io/gateway-capable";
inline constexpr char kGPUDirectLabel[] = "rdmastack.io/gpudirect";
inline constexpr char kHostMemLabel[] = "rdmastack.io/hostmem";
inline constexpr char kLinkLayerLabel[] = "rdmastack.io/link-layer";
// Every label this controller owns: one not in the desired set is removed.
inline constexpr std::string_view kOwnedNodeLabels[] = {kGatewayCapableLabel, kGPUDirectLabel,
                                                        kHostMemLabel, kLinkLayerLabel};

}  // namespace rdmastack::rdmanode
