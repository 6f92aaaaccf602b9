#pragma once
// Helm's release record: a Secret of type helm.sh/release.v1 named sh.helm.release.v1.<name>.v<N>
// whose data.release is base64 (Kubernetes) of base64 (helm) of gzip of the release JSON. Pure.
// The bundle keeps the values the user supplied (`config`), redacted by key, and the release's
// name, revision, status, chart and times; never the rendered manifest (it holds the Secrets the
// chart made) nor the chart's files.

#include <string>

#include "base/status.h"
#include "operator/k8s/json_object.h"

namespace rdmastack::plugin {

inline constexpr char kHelmReleaseType[] = "helm.sh/release.v1";

struct HelmRelease {
  k8s::JsonObject values;   // config, after RedactValues
  k8s::JsonObject summary;  // name, namespace, revision, status, chart, appVersion, deployed
  int redacted = 0;
};

// `secret` as the API returns it (data base64-encoded).
StatusOr<HelmRelease> DecodeHelmRelease(const k8s::JsonObject& secret);

}  // namespace rdmastack::plugin
