#include "controllers/rdmanode/requirements.h"

#include <algorithm>

#include "controllers/common/node_selection.h"
#include "crds/types/int_or_string.h"

namespace rdmastack::rdmanode {

agent::v1::ClientRequirement ClientRequirementOf(const crd::ClientProfile& profile) {
  const crd::ClientProfileSpec& spec = profile.spec;
  agent::v1::ClientRequirement r;
  r.set_profile(profile.metadata.namespace_.value_or("") + "/" + profile.metadata.name);
  r.set_transport(std::string(crd::ToString(spec.transport)));
  r.set_memory_registration(std::string(crd::ToString(spec.memory_registration)));
  // The schema validates the quantity; a value it let through but we cannot read asks for nothing.
  if (auto bytes = crd::BytesFromIntOrQuantity(spec.max_transfer_size); bytes.ok())
    r.set_max_transfer_bytes(*bytes);
  r.set_max_gpu_nic_distance(std::string(crd::ToString(spec.max_gpu_nic_distance)));
  r.set_gid_index(spec.gid_index.is_int() ? static_cast<int32_t>(spec.gid_index.int_value()) : -1);
  return r;
}

agent::v1::Requirements ComputeRequirements(const std::map<std::string, std::string>& node_labels,
                                            const std::vector<crd::GatewayPool>& pools,
                                            const std::vector<crd::ClientProfile>& profiles) {
  agent::v1::Requirements out;
  for (const auto& pool : pools) {
    if (pool.metadata.deletion_timestamp) continue;
    if (controllers::SelectorMatches(pool.spec.node_selector, node_labels)) {
      out.set_gateway(true);
      break;
    }
  }
  std::vector<agent::v1::ClientRequirement> clients;
  for (const auto& profile : profiles) {
    if (profile.metadata.deletion_timestamp) continue;
    if (controllers::SelectorMatches(profile.spec.node_selector, node_labels))
      clients.push_back(ClientRequirementOf(profile));
  }
  std::sort(clients.begin(), clients.end(),
            [](const auto& a, const auto& b) { return a.profile() < b.profile(); });
  for (auto& c : clients) *out.add_clients() = std::move(c);
  return out;
}

}  // namespace rdmastack::rdmanode
