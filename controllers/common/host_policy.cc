#include "controllers/common/host_policy.h"

#include <charconv>

namespace rdmastack::controllers {
namespace {

constexpr std::string_view kControlPlaneKeys[] = {"node-role.kubernetes.io/control-plane",
                                                  "node-role.kubernetes.io/master"};

std::optional<int32_t> ParsePort(std::string_view text) {
  int32_t port = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
  if (ec != std::errc() || end != text.data() + text.size() || port < 1 || port > 65535)
    return std::nullopt;
  return port;
}

std::string Describe(const crd::Toleration& t) {
  std::string out = "{";
  if (t.key) out += "key: " + *t.key + ", ";
  out +=
      std::string("operator: ") + (t.op == crd::TolerationOperator::kExists ? "Exists" : "Equal");
  if (t.effect && *t.effect != crd::TaintEffect::kAll)
    out += ", effect: " + std::string(crd::ToString(*t.effect));
  return out + "}";
}

}  // namespace

Status ParseHostPortRange(std::string_view text, HostPortRange* range) {
  const size_t dash = text.find('-');
  const std::optional<int32_t> min =
      dash == std::string_view::npos ? std::nullopt : ParsePort(text.substr(0, dash));
  const std::optional<int32_t> max =
      dash == std::string_view::npos ? std::nullopt : ParsePort(text.substr(dash + 1));
  if (!min || !max || *min > *max) {
    return InvalidArgumentError(
        "host port range '" + std::string(text) +
        "' must be MIN-MAX with 1 <= MIN <= MAX <= 65535 (e.g. 1024-65535)");
  }
  *range = {*min, *max};
  return OkStatus();
}

std::optional<HostRefusal> CheckHostPort(const TenancyPolicy& policy, std::string_view field,
                                         int32_t port) {
  const HostPortRange& r = policy.host_ports;
  if (port >= r.min && port <= r.max) return std::nullopt;
  const std::string range = std::to_string(r.min) + "-" + std::to_string(r.max);
  return HostRefusal{kReasonHostPortNotAllowed,
                     std::string(field) + " " + std::to_string(port) +
                         " is outside the host ports the operator allows (" + range +
                         "): each gateway binds it on the node's own network; choose a port in " +
                         range +
                         " (or leave it unset for the default), or ask the admin to "
                         "widen the range (--host-port-range, chart tenancy.hostPorts)"};
}

bool ToleratesControlPlane(const crd::Toleration& t) {
  if (t.effect && *t.effect == crd::TaintEffect::kPreferNoSchedule) return false;
  if (!t.key || t.key->empty()) return t.op == crd::TolerationOperator::kExists;
  for (std::string_view key : kControlPlaneKeys) {
    if (*t.key == key) return true;
  }
  return false;
}

std::optional<HostRefusal> CheckTolerations(const TenancyPolicy& policy, std::string_view field,
                                            const std::vector<crd::Toleration>& tolerations) {
  if (policy.allow_control_plane_tolerations) return std::nullopt;
  for (size_t i = 0; i < tolerations.size(); ++i) {
    const crd::Toleration& t = tolerations[i];
    if (!ToleratesControlPlane(t)) continue;
    const bool every = !t.key || t.key->empty();
    return HostRefusal{
        kReasonControlPlaneToleration,
        std::string(field) + "[" + std::to_string(i) + "] " + Describe(t) + " tolerates " +
            (every ? "every taint, the control plane's included" : "the control plane's taint") +
            ", so its privileged pods could run on control-plane nodes; tolerate only your "
            "storage or GPU nodes' own taints (by key), or ask the admin to allow it "
            "(--allow-control-plane-tolerations, chart tenancy.allowControlPlaneTolerations)"};
  }
  return std::nullopt;
}

}  // namespace rdmastack::controllers
