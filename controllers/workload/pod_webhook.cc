#include "controllers/workload/pod_webhook.h"

#include <spdlog/spdlog.h>

#include "controllers/workload/pod_injection.h"
#include "crds/types/json.h"
#include "servers/webhook/admission_review.h"

namespace rdmastack::workload {

using webhook::AdmitResponse;
using webhook::DenyResponse;
using webhook::ParseAdmissionReview;
namespace {

runtime::HttpResponse Json(std::string body) {
  return {200, "application/json", std::move(body)};
}

std::string PodName(const k8s::JsonObject& pod) {
  if (!pod.Name().empty()) return std::string(pod.Name());
  return std::string(pod.GenerateName()) + "*";
}

}  // namespace

PodWebhook::PodWebhook(const runtime::Informer& profiles, runtime::MetricsRegistry& metrics)
    : profiles_(profiles),
      admissions_(metrics.CounterFamily(
          "rdmastack_webhook_admissions_total",
          "Pods the admission webhook answered, by result (mutated, unchanged, refused, error).",
          {"result"})) {}

void PodWebhook::Count(const std::string& result) {
  admissions_.With({result}).Inc();
}

runtime::HttpResponse PodWebhook::Handle(const runtime::HttpRequest& http) {
  auto request = ParseAdmissionReview(http.body);
  if (!request.ok()) {
    Count("error");
    return {400, "text/plain; charset=utf-8", request.status().message() + "\n"};
  }
  const k8s::JsonObject& pod = request->object;
  const std::optional<std::string> profile_name = pod.Label(kProfileLabel);
  // The objectSelector sends only labelled pods; anything else passes untouched.
  if (request->kind != "Pod" || !profile_name) {
    Count("unchanged");
    return Json(AdmitResponse(*request, k8s::JsonObject::Array()));
  }
  const std::string& ns = request->namespace_;
  const std::string who = "pod " + ns + "/" + PodName(pod);
  if (!profiles_.HasSynced()) {
    Count("error");
    return Json(DenyResponse(*request, 503,
                             "the operator is still loading ClientProfiles; retry in a moment"));
  }
  const runtime::ObjectPtr object = profiles_.store().Get(k8s::ObjectKey(ns, *profile_name));
  if (!object) {
    Count("refused");
    spdlog::info("webhook: refused {}: ClientProfile {} not found", who, *profile_name);
    return Json(DenyResponse(*request, 403, ProfileNotFoundMessage(ns, *profile_name)));
  }
  auto profile = crd::ParseResource<crd::ClientProfile>(object->value());
  if (!profile.ok()) {
    Count("error");
    return Json(DenyResponse(*request, 500,
                             "ClientProfile " + ns + "/" + *profile_name +
                                 " does not decode: " + profile.status().message()));
  }
  if (Status s = CheckAdmissible(*profile); !s.ok()) {
    Count("refused");
    spdlog::info("webhook: refused {}: {}", who, s.message());
    return Json(DenyResponse(*request, 403, s.message()));
  }
  const k8s::JsonObject injected = InjectClientProfile(pod, *profile, ns);
  const k8s::JsonObject patch = PodPatch(pod, injected);
  const bool changed = !patch.value().Empty();
  Count(changed ? "mutated" : "unchanged");
  if (changed) {
    spdlog::info("webhook: {} gets ClientProfile {}{}", who, *profile_name,
                 injected.Annotation(kConflictsAnnotation)
                     ? " (conflicts: " + *injected.Annotation(kConflictsAnnotation) + ")"
                     : "");
  }
  return Json(AdmitResponse(*request, patch));
}

}  // namespace rdmastack::workload
