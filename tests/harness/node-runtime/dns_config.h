#pragma once
// The /etc/resolv.conf a pod gets on a simulated node, decided from its dnsPolicy and dnsConfig as
// the kubelet decides it (pkg/kubelet/network/dns): ClusterFirst pods ask the cluster DNS with the
// search path of their namespace; hostNetwork pods need ClusterFirstWithHostNet for that, else they
// keep the node's resolver, as do Default pods; None takes only spec.dnsConfig.

#include <string>

#include "operator/k8s/json_object.h"

namespace rdmastack::sim {

struct ClusterDns {
  std::string nameserver;                // the kube-dns Service's ClusterIP; "" = no cluster DNS
  std::string domain = "cluster.local";  // the cluster domain
};

// POD's resolv.conf; NODE_RESOLV_CONF is the node's own file (what Default gives).
std::string RenderResolvConf(const k8s::JsonObject& pod, const ClusterDns& dns,
                             const std::string& node_resolv_conf);

}  // namespace rdmastack::sim
