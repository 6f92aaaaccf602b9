#pragma once
// C++ mirror of the rdmastack.io/v1alpha1 custom resources (crds/*.yaml is the source of truth;
// crd_schema_drift_test keeps the two in step). Plain values, no JSON here: see json.h.
//
// Field rule: a member whose schema field is required or has a schema default is a plain value
// initialised to that default; an optional field without default is std::optional. Lists and
// maps are plain containers; an empty one is omitted when serialised.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crds/types/int_or_string.h"

namespace rdmastack::crd {

inline constexpr std::string_view kGroup = "rdmastack.io";
inline constexpr std::string_view kVersion = "v1alpha1";
inline constexpr std::string_view kApiVersion = "rdmastack.io/v1alpha1";

// ---- enums and their wire names ----

template <typename E>
struct EnumName {
  E value;
  std::string_view name;
};

enum class TolerationOperator { kEqual, kExists };
constexpr auto EnumNames(TolerationOperator) {
  using E = TolerationOperator;
  return std::array<EnumName<E>, 2>{{{E::kExists, "Exists"}, {E::kEqual, "Equal"}}};
}

enum class TaintEffect { kAll, kNoSchedule, kPreferNoSchedule, kNoExecute };
constexpr auto EnumNames(TaintEffect) {
  using E = TaintEffect;
  return std::array<EnumName<E>, 4>{{{E::kAll, ""},
                                     {E::kNoSchedule, "NoSchedule"},
                                     {E::kPreferNoSchedule, "PreferNoSchedule"},
                                     {E::kNoExecute, "NoExecute"}}};
}

enum class PullPolicy { kAlways, kIfNotPresent, kNever };
constexpr auto EnumNames(PullPolicy) {
  using E = PullPolicy;
  return std::array<EnumName<E>, 3>{
      {{E::kAlways, "Always"}, {E::kIfNotPresent, "IfNotPresent"}, {E::kNever, "Never"}}};
}

// What a cordoned node (or one the NVIDIA operators take down for a driver upgrade) means for
// its gateway: Drain takes it out of service gracefully; Ignore serves on.
enum class NodeMaintenancePolicy { kDrain, kIgnore };
constexpr auto EnumNames(NodeMaintenancePolicy) {
  using E = NodeMaintenancePolicy;
  return std::array<EnumName<E>, 2>{{{E::kDrain, "Drain"}, {E::kIgnore, "Ignore"}}};
}

enum class UpgradeStrategy { kSideBySide, kInPlace };
constexpr auto EnumNames(UpgradeStrategy) {
  using E = UpgradeStrategy;
  return std::array<EnumName<E>, 2>{{{E::kSideBySide, "SideBySide"}, {E::kInPlace, "InPlace"}}};
}

// Where versitygw's posix backend keeps object metadata: user xattrs of the object files, a
// sidecar directory of its own, or nowhere (--nometa).
enum class BackendMetadata { kXattr, kSidecar, kNone };
constexpr auto EnumNames(BackendMetadata) {
  using E = BackendMetadata;
  return std::array<EnumName<E>, 3>{
      {{E::kXattr, "Xattr"}, {E::kSidecar, "Sidecar"}, {E::kNone, "None"}}};
}

enum class Transport { kAuto, kGPUDirect, kHostMemory };
constexpr auto EnumNames(Transport) {
  using E = Transport;
  return std::array<EnumName<E>, 3>{
      {{E::kAuto, "Auto"}, {E::kGPUDirect, "GPUDirect"}, {E::kHostMemory, "HostMemory"}}};
}

enum class MemoryRegistration { kAuto, kDMABuf, kPeerMem };
constexpr auto EnumNames(MemoryRegistration) {
  using E = MemoryRegistration;
  return std::array<EnumName<E>, 3>{
      {{E::kAuto, "Auto"}, {E::kDMABuf, "DMABuf"}, {E::kPeerMem, "PeerMem"}}};
}

// PCIe distance between a GPU and a NIC, nearest first (NCCL's path types).
enum class PcieDistance { kPIX, kPXB, kPHB, kSYS };
constexpr auto EnumNames(PcieDistance) {
  using E = PcieDistance;
  return std::array<EnumName<E>, 4>{
      {{E::kPIX, "PIX"}, {E::kPXB, "PXB"}, {E::kPHB, "PHB"}, {E::kSYS, "SYS"}}};
}

enum class ConditionStatus { kTrue, kFalse, kUnknown };
constexpr auto EnumNames(ConditionStatus) {
  using E = ConditionStatus;
  return std::array<EnumName<E>, 3>{
      {{E::kTrue, "True"}, {E::kFalse, "False"}, {E::kUnknown, "Unknown"}}};
}

enum class LinkLayer { kInfiniBand, kEthernet, kMixed, kNone };
constexpr auto EnumNames(LinkLayer) {
  using E = LinkLayer;
  return std::array<EnumName<E>, 4>{{{E::kInfiniBand, "InfiniBand"},
                                     {E::kEthernet, "Ethernet"},
                                     {E::kMixed, "Mixed"},
                                     {E::kNone, "None"}}};
}

// The IOMMU on a GPU's and its NIC's DMA (RdmaNode status.gpus[].iommu).
enum class IommuMode { kOff, kPassthrough, kTranslated };
constexpr auto EnumNames(IommuMode) {
  using E = IommuMode;
  return std::array<EnumName<E>, 3>{
      {{E::kOff, "Off"}, {E::kPassthrough, "Passthrough"}, {E::kTranslated, "Translated"}}};
}

enum class AgentState { kConnected, kStale };
constexpr auto EnumNames(AgentState) {
  using E = AgentState;
  return std::array<EnumName<E>, 2>{{{E::kConnected, "Connected"}, {E::kStale, "Stale"}}};
}

enum class Capability { kYes, kNo, kUnknown };
constexpr auto EnumNames(Capability) {
  using E = Capability;
  return std::array<EnumName<E>, 3>{{{E::kYes, "Yes"}, {E::kNo, "No"}, {E::kUnknown, "Unknown"}}};
}

enum class NvidiaModuleFlavor { kNone, kOpen, kProprietary };
constexpr auto EnumNames(NvidiaModuleFlavor) {
  using E = NvidiaModuleFlavor;
  return std::array<EnumName<E>, 3>{
      {{E::kNone, ""}, {E::kOpen, "Open"}, {E::kProprietary, "Proprietary"}}};
}

enum class IbCoreFlavor { kNone, kInbox, kMOFED };
constexpr auto EnumNames(IbCoreFlavor) {
  using E = IbCoreFlavor;
  return std::array<EnumName<E>, 3>{{{E::kNone, ""}, {E::kInbox, "Inbox"}, {E::kMOFED, "MOFED"}}};
}

enum class RdmaNetnsMode { kNone, kShared, kExclusive };
constexpr auto EnumNames(RdmaNetnsMode) {
  using E = RdmaNetnsMode;
  return std::array<EnumName<E>, 3>{
      {{E::kNone, ""}, {E::kShared, "shared"}, {E::kExclusive, "exclusive"}}};
}

enum class CheckStatus { kPass, kWarn, kFail, kUnknown };
constexpr auto EnumNames(CheckStatus) {
  using E = CheckStatus;
  return std::array<EnumName<E>, 4>{
      {{E::kPass, "Pass"}, {E::kWarn, "Warn"}, {E::kFail, "Fail"}, {E::kUnknown, "Unknown"}}};
}

template <typename E>
concept NamedEnum = requires(E e) {
  EnumNames(e);
};

template <NamedEnum E>
constexpr std::string_view ToString(E value) {
  for (const auto& entry : EnumNames(E{})) {
    if (entry.value == value) return entry.name;
  }
  return {};
}

template <NamedEnum E>
constexpr std::optional<E> EnumFromString(std::string_view name) {
  for (const auto& entry : EnumNames(E{})) {
    if (entry.name == name) return entry.value;
  }
  return std::nullopt;
}

// ---- shared pieces ----

using StringMap = std::map<std::string, std::string>;

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  std::optional<bool> controller;
  std::optional<bool> block_owner_deletion;
  friend bool operator==(const OwnerReference&, const OwnerReference&) = default;
};

// The part of metav1.ObjectMeta the operator reads and writes.
struct ObjectMeta {
  std::string name;
  std::optional<std::string> namespace_;
  std::optional<std::string> uid;
  std::optional<std::string> resource_version;
  std::optional<int64_t> generation;
  std::optional<std::string> creation_timestamp;
  std::optional<std::string> deletion_timestamp;
  StringMap labels;
  StringMap annotations;
  std::vector<OwnerReference> owner_references;
  std::vector<std::string> finalizers;
  friend bool operator==(const ObjectMeta&, const ObjectMeta&) = default;
};

struct Condition {
  std::string type;
  ConditionStatus status = ConditionStatus::kUnknown;
  std::optional<int64_t> observed_generation;
  std::string last_transition_time;  // RFC 3339
  std::string reason;
  std::string message;
  friend bool operator==(const Condition&, const Condition&) = default;
};

struct Toleration {
  std::optional<std::string> key;
  TolerationOperator op = TolerationOperator::kEqual;
  std::optional<std::string> value;
  std::optional<TaintEffect> effect;
  std::optional<int64_t> toleration_seconds;
  friend bool operator==(const Toleration&, const Toleration&) = default;
};

struct LocalSecretRef {
  std::string name;
  friend bool operator==(const LocalSecretRef&, const LocalSecretRef&) = default;
};

// A library pinned to a full four-part version (1.2.0.68) and the image that carries it.
struct LibraryRef {
  std::string version;
  std::string image;
  friend bool operator==(const LibraryRef&, const LibraryRef&) = default;
};

// ---- GatewayPool ----

struct GatewayBuild {
  std::string image;
  std::string version;
  PullPolicy image_pull_policy = PullPolicy::kIfNotPresent;
  friend bool operator==(const GatewayBuild&, const GatewayBuild&) = default;
};

struct CredentialsSecretRef {
  std::string name;
  std::string access_key_id_key = "accessKeyId";
  std::string secret_access_key_key = "secretAccessKey";
  friend bool operator==(const CredentialsSecretRef&, const CredentialsSecretRef&) = default;
};

struct S3Spec {
  std::optional<int32_t> port;  // default: 7070 + library major
  std::string region = "us-east-1";
  CredentialsSecretRef credentials_secret;
  std::optional<LocalSecretRef> tls_secret;
  friend bool operator==(const S3Spec&, const S3Spec&) = default;
};

struct BufferPool {
  IntOrString buffer_size = IntOrString::Str("1Gi");
  int32_t buffer_count = 4;
  friend bool operator==(const BufferPool&, const BufferPool&) = default;
};

struct KeyedSecretRef {
  std::string name;
  std::string key = "dcKey";
  friend bool operator==(const KeyedSecretRef&, const KeyedSecretRef&) = default;
};

// One rail of a multi-rail pool: a gateway of its own on every node, on the IPv4 its interface or
// cidr picks (the same rules as rdma.interface and rdma.cidr), on the track's ports plus
// kRailPortStride times the rail's place in the list.
struct RdmaRail {
  std::string name;
  std::optional<std::string> interface;
  std::optional<std::string> cidr;
  friend bool operator==(const RdmaRail&, const RdmaRail&) = default;
};

// Ports of rail i: the track's S3 and RDMA ports plus i times this.
inline constexpr int32_t kRailPortStride = 100;
inline constexpr size_t kMaxRails = 8;

struct RdmaSpec {
  std::optional<std::string> interface;
  std::optional<std::string> cidr;
  std::vector<RdmaRail> rails;  // instead of interface/cidr: one gateway per rail
  std::optional<int32_t> port;  // default: 19099 + library major
  BufferPool buffer_pool;
  std::optional<KeyedSecretRef> dc_key_secret;
  friend bool operator==(const RdmaSpec&, const RdmaSpec&) = default;
};

struct PosixBackend {
  std::string path_template;
  std::string host_path;
  BackendMetadata metadata = BackendMetadata::kXattr;
  // metadata Sidecar only: the metadata directory, the same placeholders as path_template.
  std::optional<std::string> sidecar_path_template;
  // Serve only when the gateway root is on another filesystem than the node's system disk.
  bool require_mount = false;
  friend bool operator==(const PosixBackend&, const PosixBackend&) = default;
};

struct BackendSpec {
  PosixBackend posix;
  friend bool operator==(const BackendSpec&, const BackendSpec&) = default;
};

struct UpgradeSpec {
  UpgradeStrategy strategy = UpgradeStrategy::kSideBySide;
  IntOrString max_unavailable = IntOrString::Int(1);
  int32_t max_parallel = 1;
  std::string validation_timeout = "10m";
  int32_t drain_seconds = 30;
  bool paused = false;
  bool auto_rollback = true;
  friend bool operator==(const UpgradeSpec&, const UpgradeSpec&) = default;
};

struct GatewayPoolSpec {
  StringMap node_selector;
  std::vector<Toleration> tolerations;
  // Registry credentials for the gateway and server-library images, in the pool's namespace.
  std::vector<LocalSecretRef> image_pull_secrets;
  GatewayBuild gateway;
  LibraryRef server_library;
  S3Spec s3;
  RdmaSpec rdma;
  BackendSpec backend;
  UpgradeSpec upgrade;
  NodeMaintenancePolicy node_maintenance = NodeMaintenancePolicy::kDrain;
  friend bool operator==(const GatewayPoolSpec&, const GatewayPoolSpec&) = default;
};

struct GatewayPoolNodeCounts {
  int32_t selected = 0;
  int32_t verified = 0;
  int32_t ready = 0;
  int32_t upgraded = 0;
  int32_t failed = 0;
  std::optional<int32_t> maintenance;
  std::string ready_of_selected;
  friend bool operator==(const GatewayPoolNodeCounts&, const GatewayPoolNodeCounts&) = default;
};

struct LibraryTrack {
  std::string library_version;
  std::optional<std::string> gateway_version;
  std::optional<int32_t> s3_port;
  std::optional<int32_t> rdma_port;
  int32_t nodes = 0;
  int32_t active_nodes = 0;
  friend bool operator==(const LibraryTrack&, const LibraryTrack&) = default;
};

struct NodeProblem {
  std::string node;
  std::string reason;
  std::optional<std::string> message;
  std::optional<std::string> since;
  friend bool operator==(const NodeProblem&, const NodeProblem&) = default;
};

// A network a pool's gateways serve on (status.networks[]).
struct PoolNetwork {
  std::optional<std::string> rail;
  std::string cidr;
  friend bool operator==(const PoolNetwork&, const PoolNetwork&) = default;
};

struct Endpoint {
  std::string node;
  std::string ip;
  int32_t s3_port = 0;
  std::optional<int32_t> rdma_port;
  std::optional<std::string> library_version;
  // Multi-rail pools: the rails that serve on the node (s3_port and rdma_port are the first's).
  std::vector<std::string> rails;
  friend bool operator==(const Endpoint&, const Endpoint&) = default;
};

struct UpgradePhaseCounts {
  int32_t pending = 0;
  int32_t start_new = 0;
  int32_t validate = 0;
  int32_t switch_ = 0;
  int32_t drain = 0;
  int32_t stop_old = 0;
  int32_t done = 0;
  int32_t roll_back = 0;
  int32_t failed = 0;
  friend bool operator==(const UpgradePhaseCounts&, const UpgradePhaseCounts&) = default;
};

struct CurrentUpgrade {
  std::string from;
  std::string to;
  std::string strategy;
  std::optional<std::string> start_time;
  UpgradePhaseCounts phases;
  std::optional<std::string> progress;  // "3/8": nodes done of the nodes this upgrade moves
  friend bool operator==(const CurrentUpgrade&, const CurrentUpgrade&) = default;
};

// A node taken out of service for maintenance.
struct MaintenanceNode {
  std::string node;
  std::string phase;  // Draining | Stopped
  std::string cause;
  std::optional<std::string> since;
  friend bool operator==(const MaintenanceNode&, const MaintenanceNode&) = default;
};

struct GatewayPoolStatus {
  std::optional<int64_t> observed_generation;
  std::vector<Condition> conditions;
  std::optional<std::string> library;
  std::optional<GatewayPoolNodeCounts> node_counts;
  std::vector<LibraryTrack> versions;
  std::vector<NodeProblem> failing_nodes;
  // Nodes that serve, but on fewer rails than the pool has (RailDown).
  std::vector<NodeProblem> degraded_nodes;
  std::vector<MaintenanceNode> maintenance_nodes;
  std::vector<PoolNetwork> networks;
  std::vector<Endpoint> endpoints;
  std::optional<CurrentUpgrade> current_upgrade;
  friend bool operator==(const GatewayPoolStatus&, const GatewayPoolStatus&) = default;
};

struct GatewayPool {
  ObjectMeta metadata;
  GatewayPoolSpec spec;
  std::optional<GatewayPoolStatus> status;
  friend bool operator==(const GatewayPool&, const GatewayPool&) = default;
};

// ---- ClientProfile ----

struct PoolRef {
  std::string name;
  friend bool operator==(const PoolRef&, const PoolRef&) = default;
};

// How application pods that name a ClientProfile reach the RDMA device (exactly one mode is set;
// the CRD's CEL rule enforces it) and where they see their node's client configuration.
struct SharedDevicePluginMode {
  std::string resource_name = "rdma/hca_shared_devices_a";
  friend bool operator==(const SharedDevicePluginMode&, const SharedDevicePluginMode&) = default;
};

struct SriovMode {
  std::string resource_name;
  std::string network_attachment;  // NAME or NAMESPACE/NAME
  friend bool operator==(const SriovMode&, const SriovMode&) = default;
};

struct HostDeviceMode {
  friend bool operator==(const HostDeviceMode&, const HostDeviceMode&) = default;
};

struct WorkloadSpec {
  std::optional<SharedDevicePluginMode> shared_device_plugin;
  std::optional<SriovMode> sriov;
  std::optional<HostDeviceMode> host_device;
  std::string config_mount_path = "/etc/rdmastack/client";
  friend bool operator==(const WorkloadSpec&, const WorkloadSpec&) = default;
};

// An S3 user the operator makes on every gateway of the pool for the profile's clients and
// workloads (docs/operations.md "Per-profile S3 users").
struct S3UserSpec {
  std::vector<std::string> buckets;          // the buckets the user may use; made when missing
  std::string rotation;                      // a new value makes new keys
  int32_t previous_key_grace_seconds = 300;  // how long replaced keys keep working
  friend bool operator==(const S3UserSpec&, const S3UserSpec&) = default;
};

struct ClientProfileSpec {
  StringMap node_selector;
  std::vector<Toleration> tolerations;
  PoolRef gateway_pool_ref;
  Transport transport = Transport::kAuto;
  MemoryRegistration memory_registration = MemoryRegistration::kAuto;
  IntOrString max_transfer_size = IntOrString::Str("64Mi");
  PcieDistance max_gpu_nic_distance = PcieDistance::kPXB;
  IntOrString gid_index = IntOrString::Str("Auto");
  LibraryRef client_library;
  bool load_peer_mem = false;
  // S3 keys the client data plane checks the pool with (never the pool's root keys); without it
  // the client checks the gateways' health endpoint.
  std::optional<CredentialsSecretRef> credentials_secret;
  // Exclusive with credential_secret: the operator makes the user and its keys' Secret.
  std::optional<S3UserSpec> s3_user;
  // Admission of application pods (docs/api.md "Workloads"); without it they are refused.
  std::optional<WorkloadSpec> workload;
  friend bool operator==(const ClientProfileSpec&, const ClientProfileSpec&) = default;
};

struct ClientProfileNodeCounts {
  int32_t matched = 0;
  int32_t eligible = 0;
  int32_t ready = 0;
  std::string eligible_of_matched;
  std::string ready_of_eligible;
  friend bool operator==(const ClientProfileNodeCounts&, const ClientProfileNodeCounts&) = default;
};

struct TransportCount {
  std::string transport;
  std::optional<std::string> memory_registration;
  int32_t nodes = 0;
  friend bool operator==(const TransportCount&, const TransportCount&) = default;
};

struct IneligibleNode {
  std::string node;
  std::string reason;
  std::optional<std::string> message;
  friend bool operator==(const IneligibleNode&, const IneligibleNode&) = default;
};

struct EligibleNode {
  std::string node;
  std::string transport;
  std::optional<std::string> memory_registration;
  std::optional<int32_t> gid_index;
  bool ready = false;
  std::optional<std::string> message;
  friend bool operator==(const EligibleNode&, const EligibleNode&) = default;
};

// A node that left the profile while the profile's files are still on it.
struct RetiringNode {
  std::string node;
  std::string phase;  // HeldByPods | WaitingForClientPod | Uninstalling
  std::vector<std::string> pods;
  friend bool operator==(const RetiringNode&, const RetiringNode&) = default;
};

struct S3UserStatus {
  std::string secret_name;
  std::string access_key_id;
  std::optional<std::string> rotated_at;  // when the keys were last replaced
  int32_t gateways = 0;                   // gateways that have the user and its grants
  std::string gateways_of_endpoints;      // "2/3"
  friend bool operator==(const S3UserStatus&, const S3UserStatus&) = default;
};

struct ClientProfileStatus {
  std::optional<int64_t> observed_generation;
  std::vector<Condition> conditions;
  std::optional<std::string> transport;
  std::optional<ClientProfileNodeCounts> node_counts;
  std::optional<std::string> ready_node_label;
  std::optional<int32_t> endpoints;
  std::vector<TransportCount> transports;
  std::vector<EligibleNode> eligible_nodes;
  std::vector<IneligibleNode> ineligible_nodes;
  std::vector<RetiringNode> retiring_nodes;
  std::optional<S3UserStatus> s3_user;
  friend bool operator==(const ClientProfileStatus&, const ClientProfileStatus&) = default;
};

struct ClientProfile {
  ObjectMeta metadata;
  ClientProfileSpec spec;
  std::optional<ClientProfileStatus> status;
  friend bool operator==(const ClientProfile&, const ClientProfile&) = default;
};

// ---- RdmaNode ----

struct RdmaNodeSpec {
  std::string node_name;
  friend bool operator==(const RdmaNodeSpec&, const RdmaNodeSpec&) = default;
};

struct AgentStatus {
  std::optional<AgentState> state;
  std::optional<std::string> version;
  std::optional<std::string> report_hash;
  std::optional<std::string> last_report_time;
  std::optional<std::string> last_heartbeat_time;
  friend bool operator==(const AgentStatus&, const AgentStatus&) = default;
};

struct Verdict {
  Capability capable = Capability::kUnknown;
  std::optional<std::string> reason;
  std::optional<std::string> via;
  friend bool operator==(const Verdict&, const Verdict&) = default;
};

struct Verdicts {
  std::optional<Verdict> gateway;
  std::optional<Verdict> gpu_direct;
  std::optional<Verdict> host_memory;
  friend bool operator==(const Verdicts&, const Verdicts&) = default;
};

struct KernelModule {
  std::string name;
  std::optional<std::string> version;
  std::optional<bool> loaded;
  friend bool operator==(const KernelModule&, const KernelModule&) = default;
};

struct HostFacts {
  std::optional<std::string> kernel_release;
  std::optional<std::string> nvidia_driver_version;
  std::optional<NvidiaModuleFlavor> nvidia_module_flavor;
  std::optional<IbCoreFlavor> ib_core_flavor;
  std::optional<RdmaNetnsMode> rdma_netns_mode;
  std::vector<KernelModule> modules;
  std::vector<std::string> dev_infiniband;
  friend bool operator==(const HostFacts&, const HostFacts&) = default;
};

struct GidEntry {
  int32_t index = 0;
  std::optional<std::string> gid;
  std::optional<std::string> type;
  std::optional<std::string> netdev;
  friend bool operator==(const GidEntry&, const GidEntry&) = default;
};

struct RdmaPortFacts {
  int32_t number = 0;
  std::optional<std::string> state;
  std::optional<std::string> physical_state;
  std::optional<std::string> link_layer;
  std::optional<std::string> rate;
  std::optional<int32_t> active_mtu;
  std::vector<GidEntry> gids;
  friend bool operator==(const RdmaPortFacts&, const RdmaPortFacts&) = default;
};

struct RdmaDeviceFacts {
  std::string name;
  std::optional<std::string> pci_address;
  std::optional<std::string> vendor_id;
  std::optional<std::string> device_id;
  std::optional<std::string> generation;
  std::optional<bool> virtual_function;
  std::optional<std::string> firmware_version;
  std::optional<std::string> node_guid;
  std::optional<bool> dc_supported;
  std::optional<int32_t> numa_node;
  std::vector<RdmaPortFacts> ports;
  // The PCIe root complex of the function the device moves data through ("pci0000:17"): the
  // resource.kubernetes.io/pcieRoot of its DRA devices.
  std::optional<std::string> pcie_root;
  friend bool operator==(const RdmaDeviceFacts&, const RdmaDeviceFacts&) = default;
};

struct NetDevFacts {
  std::string name;
  std::optional<int32_t> mtu;
  std::vector<std::string> ipv4;
  std::optional<std::string> rdma_device;
  std::optional<int32_t> rdma_port;
  std::optional<std::string> kind;
  friend bool operator==(const NetDevFacts&, const NetDevFacts&) = default;
};

// One RDMA NIC of the node and a GPU's PCIe path to it (RdmaNode status.gpus[].nicPaths).
struct GpuNicPathFacts {
  std::string nic;
  std::string path_type;  // PIX | PXB | PHB | SYS
  friend bool operator==(const GpuNicPathFacts&, const GpuNicPathFacts&) = default;
};

struct GpuFacts {
  std::string pci_address;
  std::optional<std::string> device_id;
  std::optional<std::string> model;
  std::optional<int64_t> bar1_total_bytes;
  std::optional<int64_t> bar1_free_bytes;
  std::optional<bool> dma_buf_supported;
  std::optional<std::string> nearest_nic;
  std::optional<std::string> path_type;
  std::optional<int32_t> numa_node;
  // PCIe ACS between the GPU and nearestNic: true when a bridge redirects peer-to-peer traffic
  // up to the root complex (acs_redirect_bridges names them), absent when not known.
  std::optional<bool> acs_redirect;
  std::vector<std::string> acs_redirect_bridges;
  // The IOMMU on the GPU's and nearestNic's DMA: Off, Passthrough or Translated; absent when not
  // known.
  std::optional<IommuMode> iommu;
  // nearestNic's Data Direct function (ConnectX-8), when pathType was measured from it.
  std::optional<std::string> nearest_nic_via;
  // The path to every RDMA NIC, nearest first.
  std::vector<GpuNicPathFacts> nic_paths;
  std::optional<std::string> pcie_root;  // as RdmaDeviceFacts::pcie_root
  friend bool operator==(const GpuFacts&, const GpuFacts&) = default;
};

struct CheckResult {
  std::string id;
  CheckStatus status = CheckStatus::kUnknown;
  std::optional<std::string> reason;
  std::optional<std::string> message;
  std::optional<std::string> remedy;
  friend bool operator==(const CheckResult&, const CheckResult&) = default;
};

struct RdmaNodeStatus {
  std::optional<int64_t> observed_generation;
  std::vector<Condition> conditions;
  std::optional<LinkLayer> link_layer;
  std::optional<AgentStatus> agent;
  std::optional<Verdicts> verdicts;
  std::optional<HostFacts> host;
  std::vector<RdmaDeviceFacts> devices;
  std::vector<NetDevFacts> netdevs;
  std::vector<GpuFacts> gpus;
  std::vector<CheckResult> checks;
  friend bool operator==(const RdmaNodeStatus&, const RdmaNodeStatus&) = default;
};

struct RdmaNode {
  ObjectMeta metadata;
  RdmaNodeSpec spec;
  std::optional<RdmaNodeStatus> status;
  friend bool operator==(const RdmaNode&, const RdmaNode&) = default;
};

// ---- derived values the schema leaves to the operator ----

// Major of a four-part library version ("2.0.0.109" -> 2); error when the text is not one.
StatusOr<int> LibraryMajor(std::string_view version);
// s3.port, or 7070 + major: one S3 port per library major so two majors serve side by side.
StatusOr<int32_t> EffectiveS3Port(const GatewayPoolSpec& spec);
// rdma.port, or 19099 + major (19100 for 1.x, 19101 for 2.x).
StatusOr<int32_t> EffectiveRdmaPort(const GatewayPoolSpec& spec);
// The GID a client with gidIndex Auto uses on `port` of `node`: 0 on InfiniBand (its one GID,
// fe80:: link-local); on RoCE the RoCE v2 GID of an IPv4 address its netdev owns (the kernel adds
// one per address). nullopt when the port has none.
std::optional<int32_t> AutoClientGid(const RdmaNodeStatus& node, const RdmaPortFacts& port);

}  // namespace rdmastack::crd
