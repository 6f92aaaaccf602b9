#include "cmd/rdmastack-operator/startup_report.h"

#include "operator/k8s/api_error.h"
#include "operator/k8s/json_object.h"
#include "operator/k8s/transport.h"

namespace rdmastack::operator_cmd {

StatusOr<std::string> WhoAmI(k8s::Client& client) {
  static const k8s::ResourceType kSelfSubjectReview{
      "authentication.k8s.io", "v1", "SelfSubjectReview", "selfsubjectreviews", false};
  k8s::JsonObject review;
  review.SetApiVersion(kSelfSubjectReview.ApiVersion());
  review.SetKind(kSelfSubjectReview.kind);
  RDMASTACK_ASSIGN_OR_RETURN(k8s::JsonObject answer, client.Create(kSelfSubjectReview, review));
  std::string who = answer.GetString({"status", "userInfo", "username"}).value_or("");
  if (who.empty()) return DataLossError("SelfSubjectReview answer has no status.userInfo.username");
  std::string groups;
  for (const k8s::JsonObject& group : answer.GetArray({"status", "userInfo", "groups"})) {
    groups += (groups.empty() ? "" : ", ") + group.GetString({}).value_or("?");
  }
  return groups.empty() ? who : who + " (groups: " + groups + ")";
}

StatusOr<std::string> ApiServerVersion(const k8s::Config& config) {
  RDMASTACK_ASSIGN_OR_RETURN(std::unique_ptr<k8s::Transport> transport,
                             k8s::NewHttpsTransport(config));
  RDMASTACK_ASSIGN_OR_RETURN(k8s::HttpResponse response,
                             transport->Send(k8s::HttpRequest{"GET", "/version"}));
  if (response.status != 200) {
    return k8s::ApiErrorFromResponse(response.status, response.body, response.retry_after)
        .ToStatus()
        .WithContext("GET /version");
  }
  RDMASTACK_ASSIGN_OR_RETURN(k8s::JsonObject version, k8s::JsonObject::ParseOwned(response.body));
  auto git = version.GetString({"gitVersion"});
  if (!git) return DataLossError("/version has no gitVersion");
  return *git;
}

}  // namespace rdmastack::operator_cmd
