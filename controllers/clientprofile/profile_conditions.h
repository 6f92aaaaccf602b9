#pragma once
// The conditions of a ClientProfile's status, one function each (pure). The reasons are listed in
// docs/troubleshooting.md.

#include <string>

#include "controllers/clientprofile/profile_status.h"
#include "controllers/common/conditions.h"
#include "crds/types/clientprofile_api.h"
#include "crds/types/types.h"

namespace rdmastack::clientprofile {

// What keeps the clients from working whatever the nodes (a refused spec, no pool, a bad Secret,
// no S3 user, no endpoint); an empty reason when nothing does.
struct ProfileBlocker {
  std::string reason, message;
};
ProfileBlocker FindBlocker(const ProfileStatusInputs& in);

// The refusal a client pod gave for the profile's library image: the reason and the text after
// "LibraryRefused: " or "LibraryDigestMismatch: " on the last such line of its container's last
// message (rdmastack-client stops with that line; the DaemonSet's FallbackToLogsOnError makes it
// the termination message). Empty when there is none.
LibraryRefusal ClientLibraryRefusal(const std::string& message);

// What every condition is decided from.
struct ProfileFacts {
  const ProfileStatusInputs& in;
  size_t matched = 0, eligible = 0, ready = 0;
  std::string waiting;  // "n1, n2, ...": eligible nodes whose client is not Ready, five at most
  ProfileBlocker blocker;
  const controllers::ConditionSetter& set;
};

// The matched nodes can use the profile (True while at least one can).
crd::Condition NodesEligibleCondition(const ProfileFacts& f);
// Something outside the nodes keeps the clients from working.
crd::Condition DegradedCondition(const ProfileFacts& f);
// Client pods are still starting on eligible nodes.
crd::Condition ProgressingCondition(const ProfileFacts& f);
// Every eligible node can do I/O to the pool.
crd::Condition ReadyCondition(const ProfileFacts& f);

// "a/b", as the status's counts and the conditions' messages show a part of a whole.
std::string Fraction(size_t a, size_t b);

}  // namespace rdmastack::clientprofile
