#include "controllers/gatewaypool/rails.h"

#include <map>
#include <utility>

#include "controllers/gatewaypool/gateway_daemonset.h"
#include "lib/rails/gpu_rails.h"

namespace rdmastack::gatewaypool {

std::vector<Rail> RailsOf(const crd::GatewayPoolSpec& spec, const Track& track) {
  if (spec.rdma.rails.empty()) {
    return {{"", spec.rdma.interface.value_or(spec.rdma.cidr.value_or("")), 0, track.s3_port,
             track.rdma_port}};
  }
  std::vector<Rail> out;
  for (size_t i = 0; i < spec.rdma.rails.size(); ++i) {
    const crd::RdmaRail& r = spec.rdma.rails[i];
    const int32_t offset = static_cast<int32_t>(i) * crd::kRailPortStride;
    out.push_back({r.name, r.interface.value_or(r.cidr.value_or("")), static_cast<int>(i),
                   track.s3_port + offset, track.rdma_port + offset});
  }
  return out;
}

std::set<int32_t> TrackPorts(const crd::GatewayPoolSpec& spec, const Track& track) {
  std::set<int32_t> out;
  for (const Rail& rail : RailsOf(spec, track)) out.insert({rail.s3_port, rail.rdma_port});
  return out;
}

Status CheckRails(const crd::GatewayPoolSpec& spec, const std::vector<Rail>& rails) {
  std::map<int32_t, std::string> ports;  // port -> what binds it
  std::map<std::string, std::string> selectors;
  // A rail's name goes into container, EndpointSlice and label names: an object stored before
  // the schema's pattern, or ratcheted past it, is held to it here.
  for (const crd::RdmaRail& rail : spec.rdma.rails) {
    if (!rails::IsRailName(rail.name)) {
      return InvalidArgumentError("rail name \"" + rail.name.substr(0, 64) +
                                  "\" must be 1-15 lower-case letters, digits or '-'");
    }
  }
  for (const Rail& rail : rails) {
    const std::string who = rail.name.empty() ? "the gateway" : "rail " + rail.name;
    for (const auto& [kind, port] :
         {std::pair{"S3", rail.s3_port}, std::pair{"RDMA", rail.rdma_port}}) {
      const std::string what = who + "'s " + kind + " port " + std::to_string(port);
      if (port < 1 || port > 65535) {
        return InvalidArgumentError(what +
                                    " is outside 1..65535: each rail binds the pool's ports "
                                    "plus 100 per place in rdma.rails; lower s3.port and "
                                    "rdma.port");
      }
      if (auto [it, fresh] = ports.emplace(port, what); !fresh) {
        return InvalidArgumentError(what + " is also " + it->second +
                                    ": move s3.port or rdma.port so they do not differ by a "
                                    "multiple of 100");
      }
    }
    if (auto [it, fresh] = selectors.emplace(rail.selector, rail.name); !fresh) {
      return InvalidArgumentError("rails " + it->second + " and " + rail.name + " both pick " +
                                  rail.selector + ": each rail needs an address of its own");
    }
  }
  return OkStatus();
}

std::string GatewayContainerName(const Rail& rail) {
  return rail.name.empty() ? std::string(kGatewayContainer)
                           : std::string(kGatewayContainer) + "-" + rail.name;
}

}  // namespace rdmastack::gatewaypool
