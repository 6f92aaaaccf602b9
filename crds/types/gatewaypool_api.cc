#include "crds/types/gatewaypool_api.h"

#include "crds/types/label_names.h"
#include "operator/k8s/json_builder.h"
#include "operator/k8s/json_object.h"

namespace rdmastack::gatewaypool {

std::string OwnedSelector() {
  return std::string(kComponentLabel) + " in (" + kGatewayComponent + "," + kIamCleanupComponent +
         ")," + crd::kManagedByLabel + "=" + crd::kManagedByValue + "," + kPoolLabel;
}

std::string SerializeTrack(const Track& t) {
  k8s::JsonBuilder o;
  o.SetString({"name"}, t.name);
  o.SetInt({"major"}, t.major);
  o.SetString({"gatewayBuild"}, t.gateway_build);
  o.SetString({"gatewayVersion"}, t.gateway_version);
  o.SetString({"gatewayImage"}, t.gateway_image);
  o.SetString({"libraryVersion"}, t.library_version);
  o.SetString({"libraryImage"}, t.library_image);
  // Only when pinned, so a track without a digest keeps the annotation it always had.
  if (!t.library_sha256.empty()) o.SetString({"librarySha256"}, t.library_sha256);
  o.SetInt({"s3Port"}, t.s3_port);
  o.SetInt({"rdmaPort"}, t.rdma_port);
  return o.object().Serialize();
}

StatusOr<Track> ParseTrack(std::string_view json) {
  auto o = k8s::JsonObject::Parse(json);
  if (!o.ok() || !o->IsObject()) return InvalidArgumentError("track is not a JSON object");
  Track t;
  t.name = o->GetString({"name"}).value_or("");
  t.major = static_cast<int>(o->GetInt({"major"}).value_or(0));
  t.gateway_build = o->GetString({"gatewayBuild"}).value_or("");
  t.gateway_version = o->GetString({"gatewayVersion"}).value_or("");
  t.gateway_image = o->GetString({"gatewayImage"}).value_or("");
  t.library_version = o->GetString({"libraryVersion"}).value_or("");
  t.library_image = o->GetString({"libraryImage"}).value_or("");
  t.library_sha256 = o->GetString({"librarySha256"}).value_or("");
  t.s3_port = static_cast<int32_t>(o->GetInt({"s3Port"}).value_or(0));
  t.rdma_port = static_cast<int32_t>(o->GetInt({"rdmaPort"}).value_or(0));
  if (t.name.empty() || t.s3_port == 0) return InvalidArgumentError("track lacks name or s3Port");
  return t;
}

std::string TrackName(int major) {
  return "v" + std::to_string(major);
}

std::string DaemonSetName(std::string_view pool, std::string_view track) {
  return std::string(pool) + "-gateway-" + std::string(track);
}

std::string ServiceName(std::string_view pool) {
  return std::string(pool) + "-gateway";
}

std::string NodeTrackLabel(std::string_view ns, std::string_view pool, std::string_view track) {
  return std::string(kNodeTrackLabelPrefix) + crd::LabelNameStem(ns, pool, track.size() + 1) + "." +
         std::string(track);
}

bool IsNodeTrackLabelOf(std::string_view key, std::string_view ns, std::string_view pool) {
  const std::string prefix = std::string(kNodeTrackLabelPrefix);
  if (key.substr(0, prefix.size()) != prefix) return false;
  const size_t dot = key.rfind('.');
  if (dot == std::string_view::npos || dot + 2 > key.size() || key[dot + 1] != 'v') return false;
  const std::string_view track = key.substr(dot + 1);
  return key == NodeTrackLabel(ns, pool, track);
}

bool NodeTrackLabelMatcher::operator()(std::string_view key) {
  if (!key.starts_with(kNodeTrackLabelPrefix)) return false;
  auto it = judged_.find(key);
  if (it == judged_.end()) it = judged_.emplace(key, IsNodeTrackLabelOf(key, ns_, pool_)).first;
  return it->second;
}

std::string NodePoolAnnotation(std::string_view prefix, std::string_view ns,
                               std::string_view pool) {
  // The track label's name part without its ".<track>": same cut, same hash.
  const std::string label = NodeTrackLabel(ns, pool, "u");
  const std::string name = label.substr(sizeof(kNodeTrackLabelPrefix) - 1);
  return std::string(prefix) + kNodeTrackLabelPrefix + name.substr(0, name.size() - 2);
}

}  // namespace rdmastack::gatewaypool
