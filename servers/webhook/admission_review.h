#pragma once
// admission.k8s.io/v1 AdmissionReview in and out (pure): the request fields the pod webhook
// uses, and the response that admits (optionally with a JSON patch) or refuses.

#include <string>

#include "base/status.h"
#include "operator/k8s/json_object.h"

namespace rdmastack::webhook {

struct AdmissionRequest {
  std::string api_version;  // echoed in the response, as the API server requires
  std::string uid;
  std::string kind;  // request.kind.kind, e.g. "Pod"
  std::string namespace_;
  std::string operation;  // CREATE, UPDATE, ...
  k8s::JsonObject object;
};

// InvalidArgument names what is missing (not JSON, no request, no uid, no object).
StatusOr<AdmissionRequest> ParseAdmissionReview(std::string_view body);

// Allowed; `patch` is an RFC 6902 array (sent base64 as patchType JSONPatch unless empty).
std::string AdmitResponse(const AdmissionRequest& request, const k8s::JsonObject& patch);
// Refused with `code` (403 for a policy refusal, 400 for a malformed request) and `message`,
// which the API server passes on to the user, prefixed with the webhook's name.
std::string DenyResponse(const AdmissionRequest& request, int code, const std::string& message);

}  // namespace rdmastack::webhook
