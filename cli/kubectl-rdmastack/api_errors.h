#pragma once
// A failed call to the API server, said in one line that tells the user what to do: the cluster
// is unreachable, the credentials are refused, RBAC forbids the read, or the rdmastack CRDs are
// not installed. Pure.

#include <string>
#include <string_view>

#include "base/status.h"
#include "operator/k8s/resource.h"

namespace rdmastack::plugin {

// Where the plugin talks to, for messages.
struct ClusterInfo {
  std::string server;  // https://host:port
  std::string source;  // kubeconfig file and context, or "in-cluster"
};

// `verb`: "list" or "get".
std::string DescribeApiError(const Status& status, std::string_view verb,
                             const k8s::ResourceType& type, const ClusterInfo& cluster);

// A 404 that the API server answered without a metav1.Status: the path is not served at all, so
// the resource's CRD is not installed (as opposed to one object that does not exist).
bool IsNotServed(const Status& status);

}  // namespace rdmastack::plugin
