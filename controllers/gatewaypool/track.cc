#include "controllers/gatewaypool/track.h"

#include "controllers/common/render.h"
#include "operator/k8s/json_object.h"

namespace rdmastack::gatewaypool {

std::string SerializeTrack(const Track& t) {
  k8s::JsonObject o;
  (void)o.SetString({"name"}, t.name);
  (void)o.SetInt({"major"}, t.major);
  (void)o.SetString({"gatewayBuild"}, t.gateway_build);
  (void)o.SetString({"gatewayVersion"}, t.gateway_version);
  (void)o.SetString({"gatewayImage"}, t.gateway_image);
  (void)o.SetString({"libraryVersion"}, t.library_version);
  (void)o.SetString({"libraryImage"}, t.library_image);
  (void)o.SetInt({"s3Port"}, t.s3_port);
  (void)o.SetInt({"rdmaPort"}, t.rdma_port);
  return o.Serialize();
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
  return std::string(kNodeTrackLabelPrefix) +
         controllers::LabelNameStem(ns, pool, track.size() + 1) + "." + std::string(track);
}

bool IsNodeTrackLabelOf(std::string_view key, std::string_view ns, std::string_view pool) {
  const std::string prefix = std::string(kNodeTrackLabelPrefix);
  if (key.substr(0, prefix.size()) != prefix) return false;
  const size_t dot = key.rfind('.');
  if (dot == std::string_view::npos || dot + 2 > key.size() || key[dot + 1] != 'v') return false;
  const std::string_view track = key.substr(dot + 1);
  return key == NodeTrackLabel(ns, pool, track);
}

std::string NodePoolAnnotation(std::string_view prefix, std::string_view ns,
                               std::string_view pool) {
  // The track label's name part without its ".<track>": same cut, same hash.
  const std::string label = NodeTrackLabel(ns, pool, "u");
  const std::string name = label.substr(sizeof(kNodeTrackLabelPrefix) - 1);
  return std::string(prefix) + kNodeTrackLabelPrefix + name.substr(0, name.size() - 2);
}

TrackDecision DecideTrack(const crd::GatewayPoolSpec& spec,
                          const compat::CompatibilityMatrix& matrix) {
  TrackDecision d;
  // Fields the gateway cannot be given yet are refused rather than dropped: a pool that asked for
  // TLS must not end up serving plain HTTP.
  if (spec.backend.posix.no_meta) {
    d.reason = "UnsupportedSpec";
    d.message = "backend.posix.noMeta is not supported by this operator version yet; remove it";
    return d;
  }
  const compat::GatewayBuild* build = matrix.FindGatewayBuildForVersion(spec.gateway.version);
  if (build == nullptr) {
    d.reason = "UnknownGatewayBuild";
    d.message = "gateway.version " + spec.gateway.version +
                " names no build in the compatibility file, so the library major it links is "
                "unknown; use a listed version or add the build to the compatibility data";
    return d;
  }
  const compat::ServerLibrary* library = matrix.FindServerLibrary(spec.server_library.version);
  if (library == nullptr) {
    d.reason = "UnknownServerLibrary";
    d.message = "serverLibrary.version " + spec.server_library.version +
                " is not in the compatibility file; pin a listed version or add it";
    return d;
  }
  if (Status s = matrix.CheckGatewayLibrary(build->name, library->version); !s.ok()) {
    d.reason = "IncompatiblePair";
    d.message = "gateway.version " + spec.gateway.version + ": " + std::string(s.message()) +
                "; pin a " + build->name +
                "-compatible library or use the gateway build for that major";
    return d;
  }
  Track t;
  t.major = library->major;
  t.name = TrackName(t.major);
  t.gateway_build = build->name;
  t.gateway_version = spec.gateway.version;
  t.gateway_image = spec.gateway.image;
  t.library_version = library->version;
  t.library_image = spec.server_library.image;
  t.s3_port = spec.s3.port.value_or(7070 + t.major);
  t.rdma_port = spec.rdma.port.value_or(19099 + t.major);
  d.track = std::move(t);
  d.reason = "Compatible";
  d.message = "gateway build " + build->name + " links libcuobjserver " +
              std::to_string(library->major) + ".x; " + library->version + " is listed";
  return d;
}

}  // namespace rdmastack::gatewaypool
