#pragma once
// What an admin lets pool and profile authors choose. A namespace that may create a GatewayPool
// otherwise picks the images that run privileged on storage nodes (gateway, server library) and
// the host directory they serve read-write; a ClientProfile picks the library image copied onto
// GPU nodes. The operator's --allow-image and --allow-backend-path flags (chart: tenancy.*) name
// prefixes, optionally per namespace; with none given, anything is allowed (as before). Pure.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace rdmastack::controllers {

struct TenancyRule {
  std::string namespace_;  // "" = every namespace
  std::string prefix;
};

// Host ports a pool's gateways may bind, inclusive.
struct HostPortRange {
  int32_t min = 1024;
  int32_t max = 65535;
};

struct TenancyPolicy {
  std::vector<TenancyRule> images;         // empty: any image
  std::vector<TenancyRule> backend_paths;  // empty: any host path
  // The namespaces whose pools and profiles the operator serves; its RBAC for Secrets and for
  // what pools and profiles own (read and write) is granted there only, and it watches those kinds
  // there only (NamespacedCache). Empty: every namespace, which the chart grants only with
  // tenancy.clusterWide (by default it passes the release namespace).
  std::vector<std::string> namespaces;
  // What a pool or profile may take on a host (host_policy.h): its gateways' host ports, and
  // whether its privileged pods may tolerate the control plane's taints.
  HostPortRange host_ports;
  bool allow_control_plane_tolerations = false;
};

// "[NAMESPACE=]PREFIX". An image prefix ends in '/', ':' or '@' (a registry, repository or
// repository name; "reg.example.com" alone would also allow "reg.example.com.evil.io/x"). A path
// prefix is absolute, without "." or ".." components.
StatusOr<TenancyRule> ParseImageRule(std::string_view text);
StatusOr<TenancyRule> ParseBackendPathRule(std::string_view text);

// The reason of a refusal, on the object's conditions and Warning event.
inline constexpr char kReasonNotAllowed[] = "NotAllowed";
inline constexpr char kReasonNamespaceNotServed[] = "NamespaceNotServed";

// A namespace name for --tenant-namespace: a DNS label.
Status CheckNamespaceName(std::string_view name);
// nullopt when the operator serves `ns`; otherwise the message for a `kind` there.
std::optional<std::string> CheckNamespace(const TenancyPolicy& policy, std::string_view ns,
                                          std::string_view kind);

// nullopt when `image` (named by `field`, e.g. "gateway.image") may be used in `ns`; otherwise
// the message: what is refused and which prefixes the namespace may use.
std::optional<std::string> CheckImage(const TenancyPolicy& policy, std::string_view ns,
                                      std::string_view field, std::string_view image);
// The same for a host directory: equal to an allowed prefix or inside it, by path components.
std::optional<std::string> CheckBackendPath(const TenancyPolicy& policy, std::string_view ns,
                                            std::string_view field, std::string_view path);

}  // namespace rdmastack::controllers
