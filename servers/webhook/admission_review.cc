#include "servers/webhook/admission_review.h"

#include "operator/k8s/config.h"
#include "operator/k8s/json_builder.h"

namespace rdmastack::webhook {
namespace {

k8s::JsonBuilder ResponseEnvelope(const AdmissionRequest& request, bool allowed) {
  k8s::JsonBuilder review;
  review.SetApiVersion(request.api_version.empty() ? "admission.k8s.io/v1" : request.api_version);
  review.SetKind("AdmissionReview");
  review.SetString({"response", "uid"}, request.uid);
  review.SetBool({"response", "allowed"}, allowed);
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
  k8s::JsonBuilder review = ResponseEnvelope(request, true);
  if (patch.IsArray() && !patch.value().Empty()) {
    review.SetString({"response", "patchType"}, "JSONPatch");
    review.SetString({"response", "patch"}, k8s::EncodeBase64(patch.Serialize()));
  }
  return review.object().Serialize();
}

std::string DenyResponse(const AdmissionRequest& request, int code, const std::string& message) {
  k8s::JsonBuilder review = ResponseEnvelope(request, false);
  review.SetInt({"response", "status", "code"}, code);
  review.SetString({"response", "status", "message"}, message);
  review.SetString({"response", "status", "reason"}, code == 403 ? "Forbidden" : "BadRequest");
  return review.object().Serialize();
}

}  // namespace rdmastack::webhook
