#pragma once
// The reasons the operator writes into the status of GatewayPools, ClientProfiles and RdmaNodes:
// their conditions' reasons and the reasons of their per-node lists (failingNodes,
// ineligibleNodes), one constant each, grouped by the condition or list that first uses them.
// kAll names every one with the kinds whose status carries it; each has a row in that kind's
// section of docs/troubleshooting.md (tests/docs_test.cc checks kAll, and reads the controllers'
// sources for reasons set without these constants).
//
// Not here: the node checks' reasons (node/checks), which RdmaNode verdicts and ineligibleNodes
// pass on as the agent sent them, and the named refusals of the gateway launcher and the client
// (lib/compat/named_refusal.h, lib/compat/library_digest.h, agents/client/state.h): those
// programs do not depend on the API package.
//
// Character arrays rather than string_views, like the condition types (gatewaypool_api.h): each
// converts to the std::string that conditions and per-node entries hold.

#include <string_view>

namespace rdmastack::crd::reasons {

// Shared by GatewayPools and ClientProfiles.
// Degraded False: nothing needs attention.
inline constexpr char kAsExpected[] = "AsExpected";
// The spec could not be rendered (a value the schema let through).
inline constexpr char kInvalidSpec[] = "InvalidSpec";
// The admin's host limits (controllers/common/host_policy.h).
inline constexpr char kHostPortNotAllowed[] = "HostPortNotAllowed";
inline constexpr char kControlPlaneTolerationNotAllowed[] = "ControlPlaneTolerationNotAllowed";
// Per node: no RdmaNode for the node yet, or it is not Reporting.
inline constexpr char kAgentNotReporting[] = "AgentNotReporting";
// Per node and on RdmaNode verdict conditions: no verdict for the capability yet.
inline constexpr char kNotEvaluated[] = "NotEvaluated";
// RdmaNode verdict conditions and ClientProfile ineligibleNodes: a failed check without a reason.
inline constexpr char kCheckFailed[] = "CheckFailed";

// GatewayPool LibraryCompatible (and Ready, Progressing and Upgrading while the spec is refused).
inline constexpr char kCompatible[] = "Compatible";
inline constexpr char kUnknownGatewayBuild[] = "UnknownGatewayBuild";
inline constexpr char kUnknownServerLibrary[] = "UnknownServerLibrary";
inline constexpr char kIncompatiblePair[] = "IncompatiblePair";
inline constexpr char kCompatibilityDataInvalid[] = "CompatibilityDataInvalid";
// GatewayPool Ready, Progressing and Degraded: the Secret the pool lacks.
inline constexpr char kCredentialsSecretMissing[] = "CredentialsSecretMissing";
inline constexpr char kTlsSecretMissing[] = "TlsSecretMissing";
// GatewayPool NodesVerified (PoolConflict also Ready, Progressing and Degraded; NoNodesSelected
// also Ready; NodesNotVerified also Degraded).
inline constexpr char kPoolConflict[] = "PoolConflict";
inline constexpr char kNoNodesSelected[] = "NoNodesSelected";
inline constexpr char kAllNodesVerified[] = "AllNodesVerified";
inline constexpr char kNodesNotVerified[] = "NodesNotVerified";
// A multi-rail pool's node serves, but a rail's RDMA port is down.
inline constexpr char kRailDown[] = "RailDown";
// GatewayPool Ready (GatewaysFailing also Degraded).
inline constexpr char kAllNodesInMaintenance[] = "AllNodesInMaintenance";
inline constexpr char kNoNodesVerified[] = "NoNodesVerified";
inline constexpr char kGatewaysStarting[] = "GatewaysStarting";
inline constexpr char kGatewaysFailing[] = "GatewaysFailing";
inline constexpr char kGatewaysReady[] = "GatewaysReady";
// GatewayPool Progressing (RollingOut also Upgrading).
inline constexpr char kRollingOut[] = "RollingOut";
inline constexpr char kUpgrading[] = "Upgrading";
inline constexpr char kRolloutComplete[] = "RolloutComplete";
// GatewayPool Upgrading (RolloutHalted also a node's rolled-back move).
inline constexpr char kUpToDate[] = "UpToDate";
inline constexpr char kPortsInUse[] = "PortsInUse";
inline constexpr char kRolloutHalted[] = "RolloutHalted";
inline constexpr char kPaused[] = "Paused";
inline constexpr char kNodesFailed[] = "NodesFailed";
// GatewayPool Degraded.
inline constexpr char kSpecRefused[] = "SpecRefused";
inline constexpr char kUpgradeFailed[] = "UpgradeFailed";
// GatewayPool failingNodes: why a node cannot run the gateway ...
inline constexpr char kInterfaceNotRdma[] = "InterfaceNotRdma";
inline constexpr char kInterfaceNotFound[] = "InterfaceNotFound";
inline constexpr char kAmbiguousRdmaAddress[] = "AmbiguousRdmaAddress";
inline constexpr char kNoAddressInCidr[] = "NoAddressInCidr";
inline constexpr char kGatewayIncapable[] = "GatewayIncapable";
// ... why its gateway does not serve ...
inline constexpr char kGatewayNotScheduled[] = "GatewayNotScheduled";
inline constexpr char kGatewayCrashLooping[] = "GatewayCrashLooping";
inline constexpr char kGatewayFailing[] = "GatewayFailing";
inline constexpr char kGatewayNotReady[] = "GatewayNotReady";
// ... and why its upgrade was rolled back or failed (the operator's check of the new gateway).
inline constexpr char kNewGatewayNotReady[] = "NewGatewayNotReady";
inline constexpr char kTargetChanged[] = "TargetChanged";
inline constexpr char kValidationCredentialsRejected[] = "ValidationCredentialsRejected";
inline constexpr char kValidationConnectionRefused[] = "ValidationConnectionRefused";
inline constexpr char kValidationTimeout[] = "ValidationTimeout";
inline constexpr char kValidationBadResponse[] = "ValidationBadResponse";
inline constexpr char kCredentialsUnavailable[] = "CredentialsUnavailable";

// ClientProfile Ready and Degraded: what blocks the whole profile.
inline constexpr char kRootCredentialsRefused[] = "RootCredentialsRefused";
inline constexpr char kPoolNotFound[] = "PoolNotFound";
inline constexpr char kCredentialsSecretInvalid[] = "CredentialsSecretInvalid";
inline constexpr char kS3UserNotProvisioned[] = "S3UserNotProvisioned";
inline constexpr char kPoolNotServing[] = "PoolNotServing";
// ClientProfile NodesEligible (NoEligibleNodes also Ready).
inline constexpr char kNoNodesMatched[] = "NoNodesMatched";
inline constexpr char kNoEligibleNodes[] = "NoEligibleNodes";
inline constexpr char kSomeNodesIneligible[] = "SomeNodesIneligible";
inline constexpr char kAllNodesEligible[] = "AllNodesEligible";
// ClientProfile Progressing.
inline constexpr char kClientsStarting[] = "ClientsStarting";
inline constexpr char kBlocked[] = "Blocked";
inline constexpr char kComplete[] = "Complete";
// ClientProfile Ready.
inline constexpr char kClientsNotReady[] = "ClientsNotReady";
inline constexpr char kAllClientsReady[] = "AllClientsReady";
// ClientProfile ineligibleNodes: why a node cannot run the profile's client.
inline constexpr char kNoGpu[] = "NoGpu";
inline constexpr char kNvidiaDriverNotLoaded[] = "NvidiaDriverNotLoaded";
inline constexpr char kDmaBufUnsupported[] = "DmaBufUnsupported";
inline constexpr char kPeerMemNotLoaded[] = "PeerMemNotLoaded";
inline constexpr char kBar1Unknown[] = "Bar1Unknown";
inline constexpr char kBar1TooSmall[] = "Bar1TooSmall";
inline constexpr char kTopologyUnknown[] = "TopologyUnknown";
inline constexpr char kGpuNicTooFar[] = "GpuNicTooFar";
inline constexpr char kAcsRedirectOnPath[] = "AcsRedirectOnPath";
inline constexpr char kIommuTranslating[] = "IommuTranslating";
inline constexpr char kNoRdmaDevice[] = "NoRdmaDevice";
inline constexpr char kNoUsableGid[] = "NoUsableGid";

// RdmaNode Reporting.
inline constexpr char kReporting[] = "Reporting";
inline constexpr char kNeverReported[] = "NeverReported";
inline constexpr char kStale[] = "Stale";
inline constexpr char kAgentDisconnected[] = "AgentDisconnected";
// RdmaNode verdict conditions (GatewayCapable, GPUDirectCapable, HostMemoryCapable) True, when
// the agent's reason is no condition reason.
inline constexpr char kVerified[] = "Verified";

// The kind whose status carries a reason: its section of docs/troubleshooting.md starts with
// "## " and the kind's name.
enum class Kind { kGatewayPool, kClientProfile, kRdmaNode };

constexpr std::string_view KindName(Kind kind) {
  switch (kind) {
    case Kind::kGatewayPool: return "GatewayPool";
    case Kind::kClientProfile: return "ClientProfile";
    case Kind::kRdmaNode: return "RdmaNode";
  }
  return "";
}

struct UsedBy {
  Kind kind;
  std::string_view reason;
};

// Every reason above, once for each kind that uses it.
inline constexpr UsedBy kAll[] = {
    {Kind::kGatewayPool, kAsExpected},
    {Kind::kClientProfile, kAsExpected},
    {Kind::kGatewayPool, kInvalidSpec},
    {Kind::kClientProfile, kInvalidSpec},
    {Kind::kGatewayPool, kHostPortNotAllowed},
    {Kind::kGatewayPool, kControlPlaneTolerationNotAllowed},
    {Kind::kClientProfile, kControlPlaneTolerationNotAllowed},
    {Kind::kGatewayPool, kAgentNotReporting},
    {Kind::kClientProfile, kAgentNotReporting},
    {Kind::kGatewayPool, kNotEvaluated},
    {Kind::kRdmaNode, kNotEvaluated},
    {Kind::kClientProfile, kCheckFailed},
    {Kind::kRdmaNode, kCheckFailed},

    {Kind::kGatewayPool, kCompatible},
    {Kind::kGatewayPool, kUnknownGatewayBuild},
    {Kind::kGatewayPool, kUnknownServerLibrary},
    {Kind::kGatewayPool, kIncompatiblePair},
    {Kind::kGatewayPool, kCompatibilityDataInvalid},
    {Kind::kGatewayPool, kCredentialsSecretMissing},
    {Kind::kGatewayPool, kTlsSecretMissing},
    {Kind::kGatewayPool, kPoolConflict},
    {Kind::kGatewayPool, kNoNodesSelected},
    {Kind::kGatewayPool, kAllNodesVerified},
    {Kind::kGatewayPool, kNodesNotVerified},
    {Kind::kGatewayPool, kRailDown},
    {Kind::kGatewayPool, kAllNodesInMaintenance},
    {Kind::kGatewayPool, kNoNodesVerified},
    {Kind::kGatewayPool, kGatewaysStarting},
    {Kind::kGatewayPool, kGatewaysFailing},
    {Kind::kGatewayPool, kGatewaysReady},
    {Kind::kGatewayPool, kRollingOut},
    {Kind::kGatewayPool, kUpgrading},
    {Kind::kGatewayPool, kRolloutComplete},
    {Kind::kGatewayPool, kUpToDate},
    {Kind::kGatewayPool, kPortsInUse},
    {Kind::kGatewayPool, kRolloutHalted},
    {Kind::kGatewayPool, kPaused},
    {Kind::kGatewayPool, kNodesFailed},
    {Kind::kGatewayPool, kSpecRefused},
    {Kind::kGatewayPool, kUpgradeFailed},
    {Kind::kGatewayPool, kInterfaceNotRdma},
    {Kind::kGatewayPool, kInterfaceNotFound},
    {Kind::kGatewayPool, kAmbiguousRdmaAddress},
    {Kind::kGatewayPool, kNoAddressInCidr},
    {Kind::kGatewayPool, kGatewayIncapable},
    {Kind::kGatewayPool, kGatewayNotScheduled},
    {Kind::kGatewayPool, kGatewayCrashLooping},
    {Kind::kGatewayPool, kGatewayFailing},
    {Kind::kGatewayPool, kGatewayNotReady},
    {Kind::kGatewayPool, kNewGatewayNotReady},
    {Kind::kGatewayPool, kTargetChanged},
    {Kind::kGatewayPool, kValidationCredentialsRejected},
    {Kind::kGatewayPool, kValidationConnectionRefused},
    {Kind::kGatewayPool, kValidationTimeout},
    {Kind::kGatewayPool, kValidationBadResponse},
    {Kind::kGatewayPool, kCredentialsUnavailable},

    {Kind::kClientProfile, kRootCredentialsRefused},
    {Kind::kClientProfile, kPoolNotFound},
    {Kind::kClientProfile, kCredentialsSecretInvalid},
    {Kind::kClientProfile, kS3UserNotProvisioned},
    {Kind::kClientProfile, kPoolNotServing},
    {Kind::kClientProfile, kNoNodesMatched},
    {Kind::kClientProfile, kNoEligibleNodes},
    {Kind::kClientProfile, kSomeNodesIneligible},
    {Kind::kClientProfile, kAllNodesEligible},
    {Kind::kClientProfile, kClientsStarting},
    {Kind::kClientProfile, kBlocked},
    {Kind::kClientProfile, kComplete},
    {Kind::kClientProfile, kClientsNotReady},
    {Kind::kClientProfile, kAllClientsReady},
    {Kind::kClientProfile, kNoGpu},
    {Kind::kClientProfile, kNvidiaDriverNotLoaded},
    {Kind::kClientProfile, kDmaBufUnsupported},
    {Kind::kClientProfile, kPeerMemNotLoaded},
    {Kind::kClientProfile, kBar1Unknown},
    {Kind::kClientProfile, kBar1TooSmall},
    {Kind::kClientProfile, kTopologyUnknown},
    {Kind::kClientProfile, kGpuNicTooFar},
    {Kind::kClientProfile, kAcsRedirectOnPath},
    {Kind::kClientProfile, kIommuTranslating},
    {Kind::kClientProfile, kNoRdmaDevice},
    {Kind::kClientProfile, kNoUsableGid},

    {Kind::kRdmaNode, kReporting},
    {Kind::kRdmaNode, kNeverReported},
    {Kind::kRdmaNode, kStale},
    {Kind::kRdmaNode, kAgentDisconnected},
    {Kind::kRdmaNode, kVerified},
};

}  // namespace rdmastack::crd::reasons
