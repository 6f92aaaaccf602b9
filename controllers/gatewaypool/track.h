#pragma once
// A GatewayPool "track": one gateway build + one libcuobjserver major, with its own S3 and RDMA
// ports, run by one DaemonSet and published by its own EndpointSlices. Pure: the compatibility
// decision that must pass before anything of a track is created (the Track itself, its names and
// labels: crds/types/gatewaypool_api.h).

#include <optional>
#include <string>

#include "crds/types/gatewaypool_api.h"
#include "crds/types/types.h"
#include "lib/compat/compatibility.h"

namespace rdmastack::gatewaypool {

// The spec's track, or why not: a LibraryCompatible=False reason and message.
struct TrackDecision {
  std::optional<Track> track;
  std::string reason;  // Compatible | UnknownGatewayBuild | UnknownServerLibrary | IncompatiblePair
  std::string message;  // says what to change
};
TrackDecision DecideTrack(const crd::GatewayPoolSpec& spec,
                          const compat::CompatibilityMatrix& matrix);

}  // namespace rdmastack::gatewaypool
