#pragma once
// What the admin lets a pool or profile take on a host, besides images and directories
// (tenancy.h): the host ports its gateways bind (each gateway runs on the host network, so a port
// below 1024 or one a node's own service needs is the host's), and whether its privileged pods may
// tolerate the control plane's taints (they would then run beside etcd and the API server). Flags
// --host-port-range and --allow-control-plane-tolerations (chart: tenancy.hostPorts,
// tenancy.allowControlPlaneTolerations). Pure.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "controllers/common/tenancy.h"
#include "crds/types/reasons.h"
#include "crds/types/types.h"

namespace rdmastack::controllers {

// The reasons of the refusals, on the object's conditions and Warning event.
inline constexpr const char* kReasonHostPortNotAllowed = crd::reasons::kHostPortNotAllowed;
inline constexpr const char* kReasonControlPlaneToleration =
    crd::reasons::kControlPlaneTolerationNotAllowed;

struct HostRefusal {
  std::string reason;
  std::string message;  // the field, what it asks for, what is allowed and who can change it
};

// "MIN-MAX", 1 <= MIN <= MAX <= 65535.
Status ParseHostPortRange(std::string_view text, HostPortRange* range);

// nullopt when `port` (named by `field`, e.g. "s3.port") lies in the admin's range.
std::optional<HostRefusal> CheckHostPort(const TenancyPolicy& policy, std::string_view field,
                                         int32_t port);

// Whether `t` tolerates a taint the control plane's nodes carry: a key of
// node-role.kubernetes.io/control-plane or .../master with any value (distributions differ), or
// no key at all with operator Exists (every taint), for the effects that keep pods off a node
// (NoSchedule, NoExecute; an empty effect is every effect).
bool ToleratesControlPlane(const crd::Toleration& t);

// nullopt when the admin allows control-plane tolerations or none of `tolerations` (the spec
// field `field`) is one.
std::optional<HostRefusal> CheckTolerations(const TenancyPolicy& policy, std::string_view field,
                                            const std::vector<crd::Toleration>& tolerations);

}  // namespace rdmastack::controllers
