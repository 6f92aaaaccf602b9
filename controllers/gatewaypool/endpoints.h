#pragma once
// How clients find the gateways: a headless Service per pool and, per track, EndpointSlices
// managed by the operator (never by kube-controller-manager), one endpoint per node with a
// gateway pod, at the address clients dial. Pure.

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "controllers/common/owned_pod.h"
#include "controllers/gatewaypool/rails.h"
#include "controllers/gatewaypool/track.h"
#include "crds/types/node_upgrade.h"
#include "crds/types/types.h"
#include "operator/k8s/json_object.h"

namespace rdmastack::gatewaypool {

// A label value: no "/" (kube-controller-manager uses endpointslice-controller.k8s.io).
inline constexpr char kEndpointSliceManagedBy[] = "rdmastack-operator.rdmastack.io";
// Kubernetes' own controller writes at most 100 endpoints per slice; so do we.
inline constexpr size_t kMaxEndpointsPerSlice = 100;

k8s::JsonObject RenderService(const crd::GatewayPool& pool, const Track& track);

// The nodes a slice lists as ready.
std::set<std::string> ReadyNodes(const k8s::JsonObject& slice);

// Which nodes each existing slice of a track lists, by slice index (the "-<n>" of its name).
using SliceAssignment = std::vector<std::vector<std::string>>;
SliceAssignment ReadSliceAssignment(const std::vector<const k8s::JsonObject*>& slices);

// The slices of one track, named "<pool>-gateway-<track>-<n>", at most kMaxEndpointsPerSlice
// endpoints each. A node stays in the slice that lists it now (so one node's change rewrites one
// slice, as kube-controller-manager does); new nodes fill the first slice with room, in name
// order. Pods without an address (not yet started) are left out; trailing empty slices are
// dropped (one empty slice remains when there is nothing). Each carries the applied-hash.
//
// `role` says how each node appears during an upgrade (node_upgrade.h): absent, active (ready as
// its pod is) or draining (listed as terminating while it still serves); unset: every node with
// a pod of the track is active.
using RoleFunc = std::function<EndpointRole(const std::string& node)>;
// A rail of a multi-rail pool: its slices are "<pool>-gateway-<track>-<rail>-<n>", labelled with
// the rail, on its ports; a node whose rail is down (`up` false) is listed neither ready nor
// serving. Null: the single-rail pool's slices, as before rails.
struct SliceRail {
  Rail rail;
  std::function<bool(const std::string& node)> up;
};
std::vector<k8s::JsonObject> RenderEndpointSlices(const crd::GatewayPool& pool, const Track& track,
                                                  const std::vector<controllers::OwnedPod>& pods,
                                                  const SliceAssignment& current = {},
                                                  const RoleFunc& role = nullptr,
                                                  const SliceRail* rail = nullptr);

}  // namespace rdmastack::gatewaypool
