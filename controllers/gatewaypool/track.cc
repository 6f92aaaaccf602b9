#include "controllers/gatewaypool/track.h"

#include "crds/types/reasons.h"

namespace rdmastack::gatewaypool {

namespace reasons = crd::reasons;

TrackDecision DecideTrack(const crd::GatewayPoolSpec& spec,
                          const compat::CompatibilityMatrix& matrix) {
  TrackDecision d;
  const compat::GatewayBuild* build = matrix.FindGatewayBuildForVersion(spec.gateway.version);
  if (build == nullptr) {
    d.reason = reasons::kUnknownGatewayBuild;
    d.message = "gateway.version " + spec.gateway.version +
                " names no build in the compatibility file, so the library major it links is "
                "unknown; use a listed version or add the build to the compatibility data";
    return d;
  }
  const compat::ServerLibrary* library = matrix.FindServerLibrary(spec.server_library.version);
  if (library == nullptr) {
    d.reason = reasons::kUnknownServerLibrary;
    d.message = "serverLibrary.version " + spec.server_library.version +
                " is not in the compatibility file; pin a listed version or add it";
    return d;
  }
  if (Status s = matrix.CheckGatewayLibrary(build->name, library->version); !s.ok()) {
    d.reason = reasons::kIncompatiblePair;
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
  t.library_sha256 = library->sha256;
  t.s3_port = spec.s3.port.value_or(7070 + t.major);
  t.rdma_port = spec.rdma.port.value_or(19099 + t.major);
  d.track = std::move(t);
  d.reason = reasons::kCompatible;
  d.message = "gateway build " + build->name + " links libcuobjserver " +
              std::to_string(library->major) + ".x; " + library->version + " is listed";
  return d;
}

}  // namespace rdmastack::gatewaypool
