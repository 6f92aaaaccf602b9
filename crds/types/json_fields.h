#pragma once
// The JSON name of every member of the CRD types, in schema order. One table per struct drives
// parsing, serialising and the schema drift test, so a field is named in exactly one place.
// Internal to crds/types: include it only from .cc files and tests.

#include <string_view>
#include <tuple>

#include "base/field_table.h"
#include "crds/types/types.h"

// The table form is base/field_table.h's, shared with the node facts.
namespace rdmastack::crd::fields {

using ::rdmastack::fields::Described;
using ::rdmastack::fields::F;
using ::rdmastack::fields::Field;
using ::rdmastack::fields::FieldsOf;

}  // namespace rdmastack::crd::fields

namespace rdmastack::crd {

using fields::F;

constexpr auto JsonFields(const OwnerReference*) {
  using T = OwnerReference;
  return std::tuple{F("apiVersion", &T::api_version),
                    F("kind", &T::kind),
                    F("name", &T::name),
                    F("uid", &T::uid),
                    F("controller", &T::controller),
                    F("blockOwnerDeletion", &T::block_owner_deletion)};
}

constexpr auto JsonFields(const ObjectMeta*) {
  using T = ObjectMeta;
  return std::tuple{F("name", &T::name),
                    F("namespace", &T::namespace_),
                    F("uid", &T::uid),
                    F("resourceVersion", &T::resource_version),
                    F("generation", &T::generation),
                    F("creationTimestamp", &T::creation_timestamp),
                    F("deletionTimestamp", &T::deletion_timestamp),
                    F("labels", &T::labels),
                    F("annotations", &T::annotations),
                    F("ownerReferences", &T::owner_references),
                    F("finalizers", &T::finalizers)};
}

constexpr auto JsonFields(const Condition*) {
  using T = Condition;
  return std::tuple{F("type", &T::type),
                    F("status", &T::status),
                    F("observedGeneration", &T::observed_generation),
                    F("lastTransitionTime", &T::last_transition_time),
                    F("reason", &T::reason),
                    F("message", &T::message)};
}

constexpr auto JsonFields(const Toleration*) {
  using T = Toleration;
  return std::tuple{F("key", &T::key), F("operator", &T::op), F("value", &T::value),
                    F("effect", &T::effect), F("tolerationSeconds", &T::toleration_seconds)};
}

constexpr auto JsonFields(const LocalSecretRef*) {
  return std::tuple{F("name", &LocalSecretRef::name)};
}

constexpr auto JsonFields(const LibraryRef*) {
  return std::tuple{F("version", &LibraryRef::version), F("image", &LibraryRef::image)};
}

// ---- GatewayPool ----

constexpr auto JsonFields(const GatewayBuild*) {
  using T = GatewayBuild;
  return std::tuple{F("image", &T::image), F("version", &T::version),
                    F("imagePullPolicy", &T::image_pull_policy)};
}

constexpr auto JsonFields(const CredentialsSecretRef*) {
  using T = CredentialsSecretRef;
  return std::tuple{F("name", &T::name), F("accessKeyIdKey", &T::access_key_id_key),
                    F("secretAccessKeyKey", &T::secret_access_key_key)};
}

constexpr auto JsonFields(const S3Spec*) {
  using T = S3Spec;
  return std::tuple{F("port", &T::port), F("region", &T::region),
                    F("credentialsSecret", &T::credentials_secret), F("tlsSecret", &T::tls_secret)};
}

constexpr auto JsonFields(const BufferPool*) {
  return std::tuple{F("bufferSize", &BufferPool::buffer_size),
                    F("bufferCount", &BufferPool::buffer_count)};
}

constexpr auto JsonFields(const KeyedSecretRef*) {
  return std::tuple{F("name", &KeyedSecretRef::name), F("key", &KeyedSecretRef::key)};
}

constexpr auto JsonFields(const RdmaRail*) {
  using T = RdmaRail;
  return std::tuple{F("name", &T::name), F("interface", &T::interface), F("cidr", &T::cidr)};
}

constexpr auto JsonFields(const RdmaSpec*) {
  using T = RdmaSpec;
  return std::tuple{F("interface", &T::interface),
                    F("cidr", &T::cidr),
                    F("rails", &T::rails),
                    F("port", &T::port),
                    F("bufferPool", &T::buffer_pool),
                    F("dcKeySecret", &T::dc_key_secret)};
}

constexpr auto JsonFields(const PosixBackend*) {
  using T = PosixBackend;
  return std::tuple{F("pathTemplate", &T::path_template), F("hostPath", &T::host_path),
                    F("metadata", &T::metadata),
                    F("sidecarPathTemplate", &T::sidecar_path_template),
                    F("requireMount", &T::require_mount)};
}

constexpr auto JsonFields(const BackendSpec*) {
  return std::tuple{F("posix", &BackendSpec::posix)};
}

constexpr auto JsonFields(const UpgradeSpec*) {
  using T = UpgradeSpec;
  return std::tuple{
      F("strategy", &T::strategy),          F("maxUnavailable", &T::max_unavailable),
      F("maxParallel", &T::max_parallel),   F("validationTimeout", &T::validation_timeout),
      F("drainSeconds", &T::drain_seconds), F("paused", &T::paused),
      F("autoRollback", &T::auto_rollback)};
}

constexpr auto JsonFields(const GatewayPoolSpec*) {
  using T = GatewayPoolSpec;
  return std::tuple{F("nodeSelector", &T::node_selector),
                    F("tolerations", &T::tolerations),
                    F("imagePullSecrets", &T::image_pull_secrets),
                    F("gateway", &T::gateway),
                    F("serverLibrary", &T::server_library),
                    F("s3", &T::s3),
                    F("rdma", &T::rdma),
                    F("backend", &T::backend),
                    F("upgrade", &T::upgrade),
                    F("nodeMaintenance", &T::node_maintenance)};
}

constexpr auto JsonFields(const GatewayPoolNodeCounts*) {
  using T = GatewayPoolNodeCounts;
  return std::tuple{F("selected", &T::selected),
                    F("verified", &T::verified),
                    F("ready", &T::ready),
                    F("upgraded", &T::upgraded),
                    F("failed", &T::failed),
                    F("maintenance", &T::maintenance),
                    F("readyOfSelected", &T::ready_of_selected)};
}

constexpr auto JsonFields(const LibraryTrack*) {
  using T = LibraryTrack;
  return std::tuple{F("libraryVersion", &T::library_version),
                    F("gatewayVersion", &T::gateway_version),
                    F("s3Port", &T::s3_port),
                    F("rdmaPort", &T::rdma_port),
                    F("nodes", &T::nodes),
                    F("activeNodes", &T::active_nodes)};
}

constexpr auto JsonFields(const NodeProblem*) {
  using T = NodeProblem;
  return std::tuple{F("node", &T::node), F("reason", &T::reason), F("message", &T::message),
                    F("since", &T::since)};
}

constexpr auto JsonFields(const Endpoint*) {
  using T = Endpoint;
  return std::tuple{F("node", &T::node),
                    F("ip", &T::ip),
                    F("s3Port", &T::s3_port),
                    F("rdmaPort", &T::rdma_port),
                    F("libraryVersion", &T::library_version),
                    F("rails", &T::rails)};
}

constexpr auto JsonFields(const UpgradePhaseCounts*) {
  using T = UpgradePhaseCounts;
  return std::tuple{
      F("pending", &T::pending), F("startNew", &T::start_new), F("validate", &T::validate),
      F("switch", &T::switch_),  F("drain", &T::drain),        F("stopOld", &T::stop_old),
      F("done", &T::done),       F("rollBack", &T::roll_back), F("failed", &T::failed)};
}

constexpr auto JsonFields(const CurrentUpgrade*) {
  using T = CurrentUpgrade;
  return std::tuple{F("from", &T::from),         F("to", &T::to),
                    F("strategy", &T::strategy), F("startTime", &T::start_time),
                    F("phases", &T::phases),     F("progress", &T::progress)};
}

constexpr auto JsonFields(const MaintenanceNode*) {
  using T = MaintenanceNode;
  return std::tuple{F("node", &T::node), F("phase", &T::phase), F("cause", &T::cause),
                    F("since", &T::since)};
}

constexpr auto JsonFields(const PoolNetwork*) {
  using T = PoolNetwork;
  return std::tuple{F("rail", &T::rail), F("cidr", &T::cidr)};
}

constexpr auto JsonFields(const GatewayPoolStatus*) {
  using T = GatewayPoolStatus;
  return std::tuple{F("observedGeneration", &T::observed_generation),
                    F("conditions", &T::conditions),
                    F("library", &T::library),
                    F("nodeCounts", &T::node_counts),
                    F("versions", &T::versions),
                    F("failingNodes", &T::failing_nodes),
                    F("degradedNodes", &T::degraded_nodes),
                    F("maintenanceNodes", &T::maintenance_nodes),
                    F("networks", &T::networks),
                    F("endpoints", &T::endpoints),
                    F("currentUpgrade", &T::current_upgrade)};
}

constexpr auto JsonFields(const GatewayPool*) {
  using T = GatewayPool;
  return std::tuple{F("metadata", &T::metadata), F("spec", &T::spec), F("status", &T::status)};
}

// ---- ClientProfile ----

constexpr auto JsonFields(const PoolRef*) {
  return std::tuple{F("name", &PoolRef::name)};
}

constexpr auto JsonFields(const SharedDevicePluginMode*) {
  return std::tuple{F("resourceName", &SharedDevicePluginMode::resource_name)};
}

constexpr auto JsonFields(const SriovMode*) {
  return std::tuple{F("resourceName", &SriovMode::resource_name),
                    F("networkAttachment", &SriovMode::network_attachment)};
}

constexpr auto JsonFields(const HostDeviceMode*) {
  return std::tuple{};
}

constexpr auto JsonFields(const WorkloadSpec*) {
  using T = WorkloadSpec;
  return std::tuple{F("sharedDevicePlugin", &T::shared_device_plugin), F("sriov", &T::sriov),
                    F("hostDevice", &T::host_device), F("configMountPath", &T::config_mount_path)};
}

constexpr auto JsonFields(const S3UserSpec*) {
  using T = S3UserSpec;
  return std::tuple{F("buckets", &T::buckets), F("rotation", &T::rotation),
                    F("previousKeyGraceSeconds", &T::previous_key_grace_seconds)};
}

constexpr auto JsonFields(const S3UserStatus*) {
  using T = S3UserStatus;
  return std::tuple{F("secretName", &T::secret_name), F("accessKeyId", &T::access_key_id),
                    F("rotatedAt", &T::rotated_at), F("gateways", &T::gateways),
                    F("gatewaysOfEndpoints", &T::gateways_of_endpoints)};
}

constexpr auto JsonFields(const ClientProfileSpec*) {
  using T = ClientProfileSpec;
  return std::tuple{F("nodeSelector", &T::node_selector),
                    F("tolerations", &T::tolerations),
                    F("gatewayPoolRef", &T::gateway_pool_ref),
                    F("transport", &T::transport),
                    F("memoryRegistration", &T::memory_registration),
                    F("maxTransferSize", &T::max_transfer_size),
                    F("maxGpuNicDistance", &T::max_gpu_nic_distance),
                    F("gidIndex", &T::gid_index),
                    F("clientLibrary", &T::client_library),
                    F("loadPeerMem", &T::load_peer_mem),
                    F("credentialsSecret", &T::credentials_secret),
                    F("s3User", &T::s3_user),
                    F("workload", &T::workload)};
}

constexpr auto JsonFields(const ClientProfileNodeCounts*) {
  using T = ClientProfileNodeCounts;
  return std::tuple{F("matched", &T::matched), F("eligible", &T::eligible), F("ready", &T::ready),
                    F("eligibleOfMatched", &T::eligible_of_matched),
                    F("readyOfEligible", &T::ready_of_eligible)};
}

constexpr auto JsonFields(const TransportCount*) {
  using T = TransportCount;
  return std::tuple{F("transport", &T::transport), F("memoryRegistration", &T::memory_registration),
                    F("nodes", &T::nodes)};
}

constexpr auto JsonFields(const IneligibleNode*) {
  using T = IneligibleNode;
  return std::tuple{F("node", &T::node), F("reason", &T::reason), F("message", &T::message)};
}

constexpr auto JsonFields(const EligibleNode*) {
  using T = EligibleNode;
  return std::tuple{F("node", &T::node),
                    F("transport", &T::transport),
                    F("memoryRegistration", &T::memory_registration),
                    F("gidIndex", &T::gid_index),
                    F("ready", &T::ready),
                    F("message", &T::message)};
}

constexpr auto JsonFields(const RetiringNode*) {
  using T = RetiringNode;
  return std::tuple{F("node", &T::node), F("phase", &T::phase), F("pods", &T::pods)};
}

constexpr auto JsonFields(const ClientProfileStatus*) {
  using T = ClientProfileStatus;
  return std::tuple{F("observedGeneration", &T::observed_generation),
                    F("conditions", &T::conditions),
                    F("transport", &T::transport),
                    F("nodeCounts", &T::node_counts),
                    F("readyNodeLabel", &T::ready_node_label),
                    F("endpoints", &T::endpoints),
                    F("transports", &T::transports),
                    F("eligibleNodes", &T::eligible_nodes),
                    F("ineligibleNodes", &T::ineligible_nodes),
                    F("retiringNodes", &T::retiring_nodes),
                    F("s3User", &T::s3_user)};
}

constexpr auto JsonFields(const ClientProfile*) {
  using T = ClientProfile;
  return std::tuple{F("metadata", &T::metadata), F("spec", &T::spec), F("status", &T::status)};
}

// ---- RdmaNode ----

constexpr auto JsonFields(const RdmaNodeSpec*) {
  return std::tuple{F("nodeName", &RdmaNodeSpec::node_name)};
}

constexpr auto JsonFields(const AgentStatus*) {
  using T = AgentStatus;
  return std::tuple{F("state", &T::state), F("version", &T::version),
                    F("reportHash", &T::report_hash), F("lastReportTime", &T::last_report_time),
                    F("lastHeartbeatTime", &T::last_heartbeat_time)};
}

constexpr auto JsonFields(const Verdict*) {
  using T = Verdict;
  return std::tuple{F("capable", &T::capable), F("reason", &T::reason), F("via", &T::via)};
}

constexpr auto JsonFields(const Verdicts*) {
  using T = Verdicts;
  return std::tuple{F("gateway", &T::gateway), F("gpuDirect", &T::gpu_direct),
                    F("hostMemory", &T::host_memory)};
}

constexpr auto JsonFields(const KernelModule*) {
  using T = KernelModule;
  return std::tuple{F("name", &T::name), F("version", &T::version), F("loaded", &T::loaded)};
}

constexpr auto JsonFields(const HostFacts*) {
  using T = HostFacts;
  return std::tuple{F("kernelRelease", &T::kernel_release),
                    F("nvidiaDriverVersion", &T::nvidia_driver_version),
                    F("nvidiaModuleFlavor", &T::nvidia_module_flavor),
                    F("ibCoreFlavor", &T::ib_core_flavor),
                    F("rdmaNetnsMode", &T::rdma_netns_mode),
                    F("modules", &T::modules),
                    F("devInfiniband", &T::dev_infiniband)};
}

constexpr auto JsonFields(const GidEntry*) {
  using T = GidEntry;
  return std::tuple{F("index", &T::index), F("gid", &T::gid), F("type", &T::type),
                    F("netdev", &T::netdev)};
}

constexpr auto JsonFields(const RdmaPortFacts*) {
  using T = RdmaPortFacts;
  return std::tuple{F("number", &T::number),
                    F("state", &T::state),
                    F("physicalState", &T::physical_state),
                    F("linkLayer", &T::link_layer),
                    F("rate", &T::rate),
                    F("activeMtu", &T::active_mtu),
                    F("gids", &T::gids)};
}

constexpr auto JsonFields(const RdmaDeviceFacts*) {
  using T = RdmaDeviceFacts;
  return std::tuple{F("name", &T::name),
                    F("pciAddress", &T::pci_address),
                    F("vendorId", &T::vendor_id),
                    F("deviceId", &T::device_id),
                    F("generation", &T::generation),
                    F("virtualFunction", &T::virtual_function),
                    F("firmwareVersion", &T::firmware_version),
                    F("nodeGuid", &T::node_guid),
                    F("dcSupported", &T::dc_supported),
                    F("numaNode", &T::numa_node),
                    F("ports", &T::ports),
                    F("pcieRoot", &T::pcie_root)};
}

constexpr auto JsonFields(const NetDevFacts*) {
  using T = NetDevFacts;
  return std::tuple{F("name", &T::name),          F("mtu", &T::mtu),
                    F("ipv4", &T::ipv4),          F("rdmaDevice", &T::rdma_device),
                    F("rdmaPort", &T::rdma_port), F("kind", &T::kind)};
}

constexpr auto JsonFields(const GpuNicPathFacts*) {
  using T = GpuNicPathFacts;
  return std::tuple{F("nic", &T::nic), F("pathType", &T::path_type)};
}

constexpr auto JsonFields(const GpuFacts*) {
  using T = GpuFacts;
  return std::tuple{F("pciAddress", &T::pci_address),
                    F("deviceId", &T::device_id),
                    F("model", &T::model),
                    F("bar1TotalBytes", &T::bar1_total_bytes),
                    F("bar1FreeBytes", &T::bar1_free_bytes),
                    F("dmaBufSupported", &T::dma_buf_supported),
                    F("nearestNic", &T::nearest_nic),
                    F("pathType", &T::path_type),
                    F("numaNode", &T::numa_node),
                    F("acsRedirect", &T::acs_redirect),
                    F("acsRedirectBridges", &T::acs_redirect_bridges),
                    F("iommu", &T::iommu),
                    F("nearestNicVia", &T::nearest_nic_via),
                    F("nicPaths", &T::nic_paths),
                    F("pcieRoot", &T::pcie_root)};
}

constexpr auto JsonFields(const CheckResult*) {
  using T = CheckResult;
  return std::tuple{F("id", &T::id), F("status", &T::status), F("reason", &T::reason),
                    F("message", &T::message), F("remedy", &T::remedy)};
}

constexpr auto JsonFields(const RdmaNodeStatus*) {
  using T = RdmaNodeStatus;
  return std::tuple{F("observedGeneration", &T::observed_generation),
                    F("conditions", &T::conditions),
                    F("linkLayer", &T::link_layer),
                    F("agent", &T::agent),
                    F("verdicts", &T::verdicts),
                    F("host", &T::host),
                    F("devices", &T::devices),
                    F("netdevs", &T::netdevs),
                    F("gpus", &T::gpus),
                    F("checks", &T::checks)};
}

constexpr auto JsonFields(const RdmaNode*) {
  using T = RdmaNode;
  return std::tuple{F("metadata", &T::metadata), F("spec", &T::spec), F("status", &T::status)};
}

}  // namespace rdmastack::crd
