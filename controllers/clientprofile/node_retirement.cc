#include "controllers/clientprofile/node_retirement.h"

#include "crds/types/clientprofile_api.h"

namespace rdmastack::clientprofile {

bool IsRetiringLabel(std::string_view value) {
  return value == kRetiringValue || value == kUninstallValue;
}

std::optional<std::string> NextClientLabel(const NodeMembership& m) {
  const bool retiring = m.label && IsRetiringLabel(*m.label);
  if (m.wanted) {
    // Back in the profile: first let a running uninstall pod go (removing its label value does).
    if (retiring && m.uninstall_pod) return std::string(kRetiringValue);
    return std::string(m.client_ready ? kReadyValue : kEligibleValue);
  }
  if (!m.label) return std::nullopt;
  if (*m.label == kUninstallValue) {
    if (m.uninstall_ready) return std::nullopt;
    return std::string(kUninstallValue);
  }
  // eligible, ready, retiring, or a value someone else wrote: the files may be there.
  if (*m.label == kRetiringValue && m.holders == 0 && !m.client_pod)
    return std::string(kUninstallValue);
  return std::string(kRetiringValue);
}

std::optional<Retirement> DescribeRetirement(const NodeMembership& m,
                                             const std::optional<std::string>& next,
                                             const std::vector<std::string>& holders) {
  if (m.wanted || !next || !IsRetiringLabel(*next)) return std::nullopt;
  Retirement r;
  if (*next == kUninstallValue) {
    r.phase = "Uninstalling";
  } else if (m.holders > 0) {
    r.phase = "HeldByPods";
    for (size_t i = 0; i < holders.size() && i < kMaxListedHolders; ++i)
      r.pods.push_back(holders[i]);
  } else {
    r.phase = "WaitingForClientPod";
  }
  return r;
}

}  // namespace rdmastack::clientprofile
