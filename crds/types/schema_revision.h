#pragma once
// Which revision of each CRD this build writes for. Every CRD file carries
// `metadata.annotations["rdmastack.io/schema-revision"]`, raised with each change to the file
// (crds/schema_revisions.lock and its test keep the two honest); the build reads it from the
// files. Helm installs CRDs but never upgrades them, and the API server silently prunes fields an
// older schema lacks: an operator newer than the installed CRDs would write status and specs that
// lose fields without an error. So it does not lead until they are current. Pure.

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "base/status.h"

namespace rdmastack::crd {

inline constexpr char kSchemaRevisionAnnotation[] = "rdmastack.io/schema-revision";

struct CrdRevision {
  std::string_view name;  // "gatewaypools.rdmastack.io"
  int revision = 0;
};

// The CRDs of this build, with their revisions (generated from crds/*.yaml).
std::span<const CrdRevision> BuiltCrdRevisions();

struct InstalledCrd {
  std::string name;
  bool found = false;
  std::optional<std::string> revision;  // the annotation, when present
};

// OK when every built CRD is installed at its revision or a later one. Otherwise
// FailedPrecondition naming each CRD that is missing or older, and what to do.
Status CheckInstalledCrds(std::span<const InstalledCrd> installed);

}  // namespace rdmastack::crd
