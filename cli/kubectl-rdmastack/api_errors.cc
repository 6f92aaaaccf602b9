#include "cli/kubectl-rdmastack/api_errors.h"

#include "operator/k8s/api_error.h"

namespace rdmastack::plugin {
namespace {

constexpr const char* kNeededAccess =
    "the plugin needs get and list on gatewaypools, clientprofiles and rdmanodes "
    "(rdmastack.io), and on nodes for why and upgrade";

}  // namespace

bool IsNotServed(const Status& status) {
  const std::optional<k8s::ApiError> e = k8s::GetApiError(status);
  return e && e->http_code == 404 && e->reason_text.empty();
}

std::string DescribeApiError(const Status& status, std::string_view verb,
                             const k8s::ResourceType& type, const ClusterInfo& cluster) {
  const std::string what = std::string(verb) + " " + type.GroupResource();
  const std::optional<k8s::ApiError> e = k8s::GetApiError(status);
  if (!e) {
    // No answer from the API server: the transport failed (refused, timed out, TLS).
    return "cannot reach the API server at " + cluster.server + ", from " + cluster.source + ": " +
           status.message() +
           "; check that the cluster is up and that --kubeconfig/--context point at it";
  }
  if (IsNotServed(status) || (k8s::IsNotFound(status) && verb == "list")) {
    return "the API server at " + cluster.server + " does not serve " + type.GroupResource() +
           ": the rdmastack CRDs are not installed in this cluster (install them with kubectl "
           "apply -f crds/ or the Helm chart), or --context picks another cluster";
  }
  if (k8s::IsForbidden(status)) {
    return "forbidden to " + what + " (" + e->message + "): " + kNeededAccess +
           "; ask a cluster admin for a ClusterRole with those rights";
  }
  if (k8s::IsUnauthorized(status)) {
    return "the API server at " + cluster.server + " refused the credentials from " +
           cluster.source + ": 401 Unauthorized; log in again or fix the user in the kubeconfig";
  }
  if (k8s::IsTimeout(status) || k8s::IsServiceUnavailable(status) ||
      k8s::IsTooManyRequests(status)) {
    return "the API server at " + cluster.server + " could not answer " + what + " (" + e->message +
           "); try again in a moment";
  }
  return what + " failed: " + std::string(StatusCodeName(status.code())) + ": " + e->message;
}

}  // namespace rdmastack::plugin
