#include "cli/kubectl-rdmastack/must_gather/helm_release.h"

#include "cli/kubectl-rdmastack/must_gather/redact.h"
#include "cli/kubectl-rdmastack/must_gather/tar_gz.h"
#include "operator/k8s/config.h"

namespace rdmastack::plugin {

StatusOr<HelmRelease> DecodeHelmRelease(const k8s::JsonObject& secret) {
  const std::optional<std::string> data = secret.GetString({"data", "release"});
  if (!data) return InvalidArgumentError("no data.release in the helm release Secret");
  StatusOr<std::string> helm_text = k8s::DecodeBase64(*data);
  if (!helm_text.ok()) return InvalidArgumentError("data.release is not base64");
  StatusOr<std::string> bytes = k8s::DecodeBase64(*helm_text);
  if (!bytes.ok()) return InvalidArgumentError("the release record is not base64");
  // Helm gzips records; it reads ungzipped ones too.
  if (bytes->size() >= 2 && static_cast<unsigned char>((*bytes)[0]) == 0x1f &&
      static_cast<unsigned char>((*bytes)[1]) == 0x8b) {
    bytes = Gunzip(*bytes);
    if (!bytes.ok()) return InvalidArgumentError("the release record: " + bytes.status().message());
  }
  StatusOr<k8s::JsonObject> release = k8s::JsonObject::Parse(*bytes);
  if (!release.ok()) return InvalidArgumentError("the release record is not JSON");

  HelmRelease out;
  out.values = release->Get({"config"}).value_or(k8s::JsonObject());
  if (!out.values.IsObject()) out.values = k8s::JsonObject();
  out.redacted = RedactValues(out.values);
  k8s::JsonObject& s = out.summary;
  (void)s.SetString({"name"}, release->GetString({"name"}).value_or(""));
  (void)s.SetString({"namespace"}, release->GetString({"namespace"}).value_or(""));
  (void)s.SetInt({"revision"}, release->GetInt({"version"}).value_or(0));
  (void)s.SetString({"status"}, release->GetString({"info", "status"}).value_or(""));
  (void)s.SetString({"description"}, release->GetString({"info", "description"}).value_or(""));
  (void)s.SetString({"firstDeployed"}, release->GetString({"info", "first_deployed"}).value_or(""));
  (void)s.SetString({"lastDeployed"}, release->GetString({"info", "last_deployed"}).value_or(""));
  (void)s.SetString({"chart"}, release->GetString({"chart", "metadata", "name"}).value_or(""));
  (void)s.SetString({"chartVersion"},
                    release->GetString({"chart", "metadata", "version"}).value_or(""));
  (void)s.SetString({"appVersion"},
                    release->GetString({"chart", "metadata", "appVersion"}).value_or(""));
  (void)s.SetString({"record"}, secret.Name());
  return out;
}

}  // namespace rdmastack::plugin
