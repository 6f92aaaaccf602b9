#pragma once
// The pod admission webhook's handler: looks up the ClientProfile a pod names in the manager's
// shared ClientProfile cache (informers run on every replica, leader or not, so a standby answers
// as the leader does, and an admission costs no API request) and admits the pod with the profile
// injected, or refuses it with what to do.

#include <string>

#include "operator/runtime/http_server.h"
#include "operator/runtime/informer.h"
#include "operator/runtime/metrics.h"

namespace rdmastack::workload {

inline constexpr char kMutatePodsPath[] = "/mutate-pods";

class PodWebhook {
 public:
  PodWebhook(const runtime::Informer& profiles, runtime::MetricsRegistry& metrics);

  // POST kMutatePodsPath: an AdmissionReview in, an AdmissionReview out (HTTP 200), or 400 when
  // the body is no AdmissionReview.
  runtime::HttpResponse Handle(const runtime::HttpRequest& request);

 private:
  // result: mutated, unchanged, refused, error
  void Count(const std::string& result);

  const runtime::Informer& profiles_;
  runtime::Family<runtime::Counter>& admissions_;
};

}  // namespace rdmastack::workload
