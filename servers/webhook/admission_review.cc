#include "servers/webhook/admission_review.h"

#include "operator/k8s/config.h"

namespace rdmastack::webhook {
namespace {

k8s::JsonObject ResponseEnvelope(const AdmissionRequest& request, bool allowed) {
  k8s::JsonObject review;
  review.SetApiVersion(request.api_version.empty() ? "admission.k8s.io/v1" : request.api_version);
  review.SetKind("AdmissionReview");
  (void)review.SetString({"response", "uid"}, request.uid);
  (void)review.SetBool({"response", "allowed"}, allowed);
  return review;
}

}  // namespace

StatusOr<AdmissionRequest> ParseAdmissionReview(std::string_view body) {
  auto review = k8s::JsonObject::Parse(body);
  if (!review.ok())
    return InvalidArgumentError("AdmissionReview is not JSON: " + review.status().message());
  if (!review->Has({"request"})) return InvalidArgumentError("AdmissionReview has no request");
  AdmissionRequest out;
  out.api_version = std::string(review->ApiVersion());
  out.uid = review->GetString({"request", "uid"}).value_or("");
  if (out.uid.empty()) return InvalidArgumentError("AdmissionReview request has no uid");
  out.kind = review->GetString({"request", "kind", "kind"}).value_or("");
  out.namespace_ = review->GetString({"request", "namespace"}).value_or("");
  out.operation = review->GetString({"request", "operation"}).value_or("");
  auto object = review->Get({"request", "object"});
  if (!object || !object->IsObject()) {
    return InvalidArgumentError("AdmissionReview request has no object");
  }
  out.object = std::move(*object);
  return out;
}

std::string AdmitResponse(const AdmissionRequest& request, const k8s::JsonObject& patch) {
  k8s::JsonObject review = ResponseEnvelope(request, true);
  if (patch.IsArray() && !patch.value().Empty()) {
    (void)review.SetString({"response", "patchType"}, "JSONPatch");
    (void)review.SetString({"response", "patch"}, k8s::EncodeBase64(patch.Serialize()));
  }
  return review.Serialize();
}

std::string DenyResponse(const AdmissionRequest& request, int code, const std::string& message) {
  k8s::JsonObject review = ResponseEnvelope(request, false);
  (void)review.SetInt({"response", "status", "code"}, code);
  (void)review.SetString({"response", "status", "message"}, message);
  (void)review.SetString({"response", "status", "reason"},
                         code == 403 ? "Forbidden" : "BadRequest");
  return review.Serialize();
}

}  // namespace rdmastack::webhook
