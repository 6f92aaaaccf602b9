#include "controllers/gatewaypool/endpoints.h"

#include <algorithm>
#include <map>
#include <set>

#include "controllers/common/render.h"
#include "crds/types/label_names.h"

namespace rdmastack::gatewaypool {
namespace {

using controllers::Obj;
using controllers::Str;

void CommonMetadata(const crd::GatewayPool& pool, k8s::JsonBuilder* o) {
  o->SetNamespace(pool.metadata.namespace_.value_or(""));
  o->SetLabel(kPoolLabel, pool.metadata.name);
  o->SetLabel(kComponentLabel, kGatewayComponent);
  o->SetLabel(crd::kManagedByLabel, crd::kManagedByValue);
  o->Append({"metadata", "ownerReferences"},
            controllers::ControllerOwner("GatewayPool", pool.metadata));
}

// The RDMA port is not a TCP listener (clients never dial it: the library negotiates it), but
// an EndpointPort must name a protocol; appProtocol says what it is.
k8s::JsonObject Port(std::string_view name, int32_t port, std::string_view app_protocol) {
  k8s::JsonBuilder p;
  p.SetString({"name"}, name);
  p.SetString({"protocol"}, "TCP");
  p.SetInt({"port"}, port);
  p.SetString({"appProtocol"}, app_protocol);
  return std::move(p).Build();
}

// One node's endpoint: its pod's address, serving as the pod and its rail are, ready unless it is
// terminating or draining.
k8s::JsonObject EndpointOf(const crd::GatewayPool& pool, const controllers::OwnedPod& p,
                           bool serving, bool terminating) {
  k8s::JsonBuilder e;
  e.Append({"addresses"}, Str(p.ip));
  e.SetBool({"conditions", "ready"}, serving && !terminating);
  e.SetBool({"conditions", "serving"}, serving);
  e.SetBool({"conditions", "terminating"}, terminating);
  e.SetString({"nodeName"}, p.node);
  e.SetString({"targetRef", "kind"}, "Pod");
  e.SetString({"targetRef", "namespace"}, pool.metadata.namespace_.value_or(""));
  e.SetString({"targetRef", "name"}, p.name);
  e.SetString({"targetRef", "uid"}, p.uid);
  return std::move(e).Build();
}

}  // namespace

k8s::JsonObject RenderService(const crd::GatewayPool& pool, const Track& track) {
  k8s::JsonBuilder svc;
  svc.SetApiVersion("v1");
  svc.SetKind("Service");
  svc.SetName(ServiceName(pool.metadata.name));
  CommonMetadata(pool, &svc);
  // Headless and without a selector: kube-controller-manager publishes nothing for it; the
  // operator's EndpointSlices are its endpoints.
  svc.SetString({"spec", "clusterIP"}, "None");
  svc.SetBool({"spec", "publishNotReadyAddresses"}, false);
  k8s::JsonBuilder s3(Port("s3", track.s3_port, "http"));
  s3.SetInt({"targetPort"}, track.s3_port);
  svc.Append({"spec", "ports"}, s3);
  controllers::StampAppliedHash(&svc);
  return std::move(svc).Build();
}

std::set<std::string> ReadyNodes(const k8s::JsonObject& slice) {
  std::set<std::string> out;
  for (const auto& e : slice.GetArray({"endpoints"})) {
    if (e.GetBool({"conditions", "ready"}).value_or(false))
      out.insert(e.GetString({"nodeName"}).value_or(""));
  }
  return out;
}

SliceAssignment ReadSliceAssignment(const std::vector<const k8s::JsonObject*>& slices) {
  SliceAssignment out;
  for (const k8s::JsonObject* slice : slices) {
    const std::string name(slice->Name());
    const size_t dash = name.rfind('-');
    if (dash == std::string::npos) continue;
    size_t index = 0;
    try {
      index = std::stoul(name.substr(dash + 1));
    } catch (...) {
      continue;
    }
    if (index >= 1000) continue;
    if (out.size() <= index) out.resize(index + 1);
    for (const auto& e : slice->GetArray({"endpoints"})) {
      if (auto node = e.GetString({"nodeName"})) out[index].push_back(*node);
    }
  }
  return out;
}

std::vector<k8s::JsonObject> RenderEndpointSlices(const crd::GatewayPool& pool, const Track& track,
                                                  const std::vector<controllers::OwnedPod>& pods,
                                                  const SliceAssignment& current,
                                                  const RoleFunc& role, const SliceRail* rail) {
  // One pod per node: during a replacement the live one.
  std::map<std::string, const controllers::OwnedPod*> by_node;
  std::map<std::string, bool> draining;
  for (const auto& p : pods) {
    if (p.track != track.name || p.ip.empty() || p.node.empty()) continue;
    const EndpointRole r = role ? role(p.node) : EndpointRole::kActive;
    if (r == EndpointRole::kAbsent) continue;
    draining[p.node] = r == EndpointRole::kDraining;
    auto [it, inserted] = by_node.emplace(p.node, &p);
    if (!inserted && Supersedes(p, *it->second)) it->second = &p;
  }
  std::vector<std::vector<const controllers::OwnedPod*>> slots(std::max<size_t>(current.size(), 1));
  std::set<std::string> placed;
  for (size_t i = 0; i < current.size(); ++i) {
    for (const std::string& node : current[i]) {
      auto it = by_node.find(node);
      if (it == by_node.end() || slots[i].size() >= kMaxEndpointsPerSlice ||
          !placed.insert(node).second)
        continue;
      slots[i].push_back(it->second);
    }
  }
  for (const auto& [node, pod] : by_node) {
    if (placed.count(node)) continue;
    auto slot = std::find_if(slots.begin(), slots.end(),
                             [](const auto& s) { return s.size() < kMaxEndpointsPerSlice; });
    if (slot == slots.end())
      slot = slots.insert(slots.end(), std::vector<const controllers::OwnedPod*>{});
    slot->push_back(pod);
  }
  while (slots.size() > 1 && slots.back().empty()) slots.pop_back();

  std::vector<k8s::JsonObject> out;
  for (size_t n = 0; n < slots.size(); ++n) {
    std::sort(slots[n].begin(), slots[n].end(),
              [](const controllers::OwnedPod* a, const controllers::OwnedPod* b) {
                return a->node < b->node;
              });
    k8s::JsonBuilder slice;
    slice.SetApiVersion("discovery.k8s.io/v1");
    slice.SetKind("EndpointSlice");
    const std::string base = DaemonSetName(pool.metadata.name, track.name) +
                             (rail != nullptr ? "-" + rail->rail.name : std::string());
    slice.SetName(base + "-" + std::to_string(n));
    CommonMetadata(pool, &slice);
    slice.SetLabel("kubernetes.io/service-name", ServiceName(pool.metadata.name));
    slice.SetLabel("endpointslice.kubernetes.io/managed-by", kEndpointSliceManagedBy);
    slice.SetLabel(kTrackLabel, track.name);
    slice.SetLabel(kLibraryVersionLabel, track.library_version);
    if (rail != nullptr) slice.SetLabel(kRailLabel, rail->rail.name);
    slice.SetString({"addressType"}, "IPv4");
    slice.Append({"ports"},
                 Port("s3", rail != nullptr ? rail->rail.s3_port : track.s3_port, "http"));
    slice.Append({"ports"}, Port("rdma", rail != nullptr ? rail->rail.rdma_port : track.rdma_port,
                                 "rdmastack.io/cuobject-rdma"));
    slice.Set({"endpoints"}, k8s::JsonObject::Array());
    for (const controllers::OwnedPod* pod : slots[n]) {
      const controllers::OwnedPod& p = *pod;
      const bool serving = p.ready && (rail == nullptr || !rail->up || rail->up(p.node));
      slice.Append({"endpoints"}, EndpointOf(pool, p, serving, p.terminating || draining[p.node]));
    }
    controllers::StampAppliedHash(&slice);
    out.push_back(std::move(slice).Build());
  }
  return out;
}

}  // namespace rdmastack::gatewaypool
