#pragma once
// The GatewayPool's API beyond its schema (types.h): the labels, annotations, finalizer and Secret
// keys it puts on what it owns and on Nodes, the names it gives them, its condition types, and
// the Track a gateway DaemonSet carries. The operator, the plugin and the tests read them from
// here so that no two read the format differently. Namespace of the kind, as its controller's.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "base/status.h"

namespace rdmastack::gatewaypool {

// Condition types (reasons and what to do: docs/troubleshooting.md "GatewayPool").
inline constexpr char kReady[] = "Ready";
inline constexpr char kProgressing[] = "Progressing";
inline constexpr char kDegraded[] = "Degraded";
inline constexpr char kLibraryCompatible[] = "LibraryCompatible";
inline constexpr char kNodesVerified[] = "NodesVerified";
inline constexpr char kUpgrading[] = "Upgrading";

// Labels on everything a pool owns (DaemonSets, pods, Service, EndpointSlices).
inline constexpr char kPoolLabel[] = "gatewaypool.rdmastack.io/name";
inline constexpr char kTrackLabel[] = "gatewaypool.rdmastack.io/track";
inline constexpr char kLibraryVersionLabel[] = "gatewaypool.rdmastack.io/library-version";
// On a multi-rail pool's EndpointSlices: the rail they publish.
inline constexpr char kRailLabel[] = "gatewaypool.rdmastack.io/rail";
// On gateway pods: the hash of the DaemonSet template they were made from.
inline constexpr char kTemplateHashLabel[] = "gatewaypool.rdmastack.io/template-hash";
// On a track's DaemonSet: the Track it runs (JSON), so that a track the spec has left can still be
// published and reported while nodes move off it.
inline constexpr char kTrackSpecAnnotation[] = "gatewaypool.rdmastack.io/track";
inline constexpr char kComponentLabel[] = "app.kubernetes.io/component";
inline constexpr char kGatewayComponent[] = "gateway";
// The pods that remove a deleted pool's IAM directory from its nodes (iam_cleanup.h).
inline constexpr char kIamCleanupComponent[] = "iam-cleanup";
// Held on a pool until what the operator created for it is gone.
inline constexpr char kFinalizer[] = "rdmastack.io/gatewaypool-cleanup";
// Node labels `gwp.rdmastack.io/<namespace>.<pool>.<track>: "true"` say which tracks of which
// pools run on the node; the gateway DaemonSets select on them.
inline constexpr char kNodeTrackLabelPrefix[] = "gwp.rdmastack.io/";
// s3.tlsSecret: the keys it must hold (kubernetes.io/tls plus the CA that clients, the readiness
// probe and the operator verify the gateways against).
inline constexpr char kTlsCertKey[] = "tls.crt";
inline constexpr char kTlsKeyKey[] = "tls.key";
inline constexpr char kTlsCaKey[] = "ca.crt";

struct Track {
  std::string name;  // "v1": the library major
  int major = 0;
  std::string gateway_build;  // compatibility-file build name (vgwrdma-v1.8.0)
  std::string gateway_version;
  std::string gateway_image;
  std::string library_version;
  std::string library_image;
  // sha256 (hex) of libcuobjserver.so.<library_version> from the compatibility data; "" = not
  // pinned. The launcher refuses other bytes (LibraryDigestMismatch).
  std::string library_sha256;
  int32_t s3_port = 0;
  int32_t rdma_port = 0;
  friend bool operator==(const Track&, const Track&) = default;
};

// The label selector of everything a pool owns (DaemonSets, pods, Service, EndpointSlices): its
// gateways' and, while it is being deleted, its IAM cleanup's.
std::string OwnedSelector();

// The Track as kTrackSpecAnnotation holds it (JSON).
std::string SerializeTrack(const Track& track);
StatusOr<Track> ParseTrack(std::string_view json);

std::string TrackName(int major);
// "<pool>-gateway-v1".
std::string DaemonSetName(std::string_view pool, std::string_view track);
// The headless Service that owns the pool's EndpointSlices: "<pool>-gateway".
std::string ServiceName(std::string_view pool);
// Label names are at most 63 characters: a long namespace+pool is cut and suffixed with a hash
// so that two pools never share a key.
std::string NodeTrackLabel(std::string_view ns, std::string_view pool, std::string_view track);
bool IsNodeTrackLabelOf(std::string_view key, std::string_view ns, std::string_view pool);
// IsNodeTrackLabelOf for one pool over many nodes: each distinct key is judged once. A pass walks
// every node, and every node carries the track labels of the pools on it; building each key's
// label again per node made a pass cost more the more pools the cluster had.
class NodeTrackLabelMatcher {
 public:
  NodeTrackLabelMatcher(std::string_view ns, std::string_view pool) : ns_(ns), pool_(pool) {}
  bool operator()(std::string_view key);

 private:
  std::string ns_, pool_;
  std::map<std::string, bool, std::less<>> judged_;
};
// A per-pool annotation on a Node: "<prefix>gwp.rdmastack.io/<namespace>.<pool>", the name cut
// and hashed as the track labels' are (prefix "upgrade." or "maintenance.").
std::string NodePoolAnnotation(std::string_view prefix, std::string_view ns, std::string_view pool);

}  // namespace rdmastack::gatewaypool
