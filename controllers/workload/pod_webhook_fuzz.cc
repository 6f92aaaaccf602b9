// Fuzzes the pod webhook's pipeline, AdmissionReview in to AdmissionReview out (PodWebhook::Handle
// without the cache lookup: the profile is the GPUDirect sample's): whatever the request, the
// answer is an AdmissionReview with the request's uid, and its JSON patch, applied to the pod the
// way the API server does, gives exactly the injected pod.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string_view>

#include "controllers/workload/pod_injection.h"
#include "crds/types/json.h"
#include "operator/k8s/config.h"
#include "operator/k8s/testing/json_patch.h"
#include "servers/webhook/admission_review.h"

namespace {

using namespace rdmastack;

const crd::ClientProfile& Profile() {
  static const crd::ClientProfile profile = [] {
    auto p = crd::ParseResource<crd::ClientProfile>(
        R"({"apiVersion":"rdmastack.io/v1alpha1","kind":"ClientProfile",)"
        R"("metadata":{"name":"kvcache-gpudirect","namespace":"ml","uid":"u1"},)"
        R"("spec":{"gatewayPoolRef":{"name":"kvcache"},"transport":"GPUDirect",)"
        R"("nodeSelector":{"node-role.rdmastack.io/gpu":""},)"
        R"("clientLibrary":{"version":"1.2.0.68","image":"registry.local/cuobjclient:1.2.0.68"},)"
        R"("workload":{"sharedDevicePlugin":{"resourceName":"rdma/hca_shared_devices_a"},)"
        R"("configMountPath":"/etc/rdmastack/client"}},)"
        R"("status":{"nodeCounts":{"eligible":2,"ready":2}}})");
    if (!p.ok()) std::abort();
    return *p;
  }();
  return profile;
}

// A JSON object with one member name twice: valid JSON, but never what the API server sends (it
// serialises a typed Pod), and one for which "the pod" has no single meaning to compare against.
bool HasDuplicateMembers(const rapidjson::Value& v) {
  if (v.IsArray()) {
    for (const auto& item : v.GetArray()) {
      if (HasDuplicateMembers(item)) return true;
    }
    return false;
  }
  if (!v.IsObject()) return false;
  std::set<std::string_view> names;
  for (const auto& m : v.GetObject()) {
    if (!names.insert({m.name.GetString(), m.name.GetStringLength()}).second) return true;
    if (HasDuplicateMembers(m.value)) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  auto request = webhook::ParseAdmissionReview(body);
  if (!request.ok()) return 0;
  if (HasDuplicateMembers(request->object.value())) return 0;
  const crd::ClientProfile& profile = Profile();
  if (!workload::CheckAdmissible(profile).ok()) std::abort();
  const k8s::JsonObject injected =
      workload::InjectClientProfile(request->object, profile, request->namespace_);
  const k8s::JsonObject patch = workload::PodPatch(request->object, injected);
  const std::string response = webhook::AdmitResponse(*request, patch);
  auto review = k8s::JsonObject::Parse(response);
  if (!review.ok()) std::abort();
  if (review->GetString({"response", "uid"}) != request->uid) std::abort();
  if (review->GetBool({"response", "allowed"}) != true) std::abort();
  const std::optional<std::string> sent = review->GetString({"response", "patch"});
  if (patch.value().Empty()) {
    if (sent) std::abort();  // nothing to change: no patch
    return 0;
  }
  if (!sent) std::abort();
  auto decoded = k8s::DecodeBase64(*sent);
  if (!decoded.ok()) std::abort();
  k8s::JsonObject pod = request->object;
  if (!k8s::testing::ApplyJsonPatch(*decoded, pod).ok()) std::abort();
  if (!(pod == injected)) std::abort();  // member order may differ: compared as JSON values
  return 0;
}
