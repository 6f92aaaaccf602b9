// SubjectAccessReview for non-resource URLs (declared in client.h beside ReviewToken).

#include "operator/k8s/client.h"

namespace rdmastack::k8s {

StatusOr<JsonObject> ReviewNonResourceAccess(Client& client, const JsonObject& user,
                                             std::string_view verb, std::string_view path) {
  JsonObject review;
  review.SetApiVersion("authorization.k8s.io/v1");
  review.SetKind("SubjectAccessReview");
  RDMASTACK_RETURN_IF_ERROR(
      review.SetString({"spec", "user"}, user.GetString({"username"}).value_or("")));
  if (auto uid = user.GetString({"uid"}); uid && !uid->empty()) {
    RDMASTACK_RETURN_IF_ERROR(review.SetString({"spec", "uid"}, *uid));
  }
  // Groups and extra are passed through as the authenticator returned them: RBAC binds groups
  // (system:serviceaccounts, system:authenticated) and webhooks may look at extra.
  for (const char* field : {"groups", "extra"}) {
    if (auto value = user.Get({field})) {
      RDMASTACK_RETURN_IF_ERROR(review.Set({"spec", field}, *value));
    }
  }
  RDMASTACK_RETURN_IF_ERROR(review.SetString({"spec", "nonResourceAttributes", "path"}, path));
  RDMASTACK_RETURN_IF_ERROR(review.SetString({"spec", "nonResourceAttributes", "verb"}, verb));
  RDMASTACK_ASSIGN_OR_RETURN(JsonObject result,
                             client.Create(kinds::SubjectAccessReview(), review));
  auto status = result.Get({"status"});
  if (!status) return DataLossError("SubjectAccessReview response has no status");
  return std::move(*status);
}

}  // namespace rdmastack::k8s
