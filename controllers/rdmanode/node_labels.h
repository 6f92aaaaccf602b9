#pragma once
// RdmaNode status -> the rdmastack.io/ labels its Node should carry (pure).

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "crds/types/rdmanode_api.h"
#include "crds/types/types.h"

namespace rdmastack::rdmanode {

// Whether a node's facts may still be published (as labels, as DRA devices): while Reporting is
// True or not yet set, and for `grace` after it went False (an agent restart is not news);
// `recheck_at` is when that grace ends.
struct FactsTrust {
  bool trusted = true;
  std::optional<Clock::WallTime> recheck_at;
};
FactsTrust TrustFacts(const crd::RdmaNodeStatus& status, Clock::WallTime now,
                      Clock::Duration grace);

struct DesiredLabels {
  std::map<std::string, std::string> labels;
  // When the labels would change with no new event (the grace period after Stale ends).
  std::optional<Clock::WallTime> recheck_at;
};

// "true"/"false" per verdict condition that is True/False (none while Unknown), the link layer;
// nothing once Reporting has been False for longer than `grace`.
DesiredLabels DesiredNodeLabels(const crd::RdmaNodeStatus& status, Clock::WallTime now,
                                Clock::Duration grace);

// The merge patch that takes `current` labels to `desired` for the owned keys: {"metadata":
// {"labels": {k: v or null}}}; "" when nothing differs.
std::string NodeLabelPatch(const std::map<std::string, std::string>& current,
                           const std::map<std::string, std::string>& desired);

}  // namespace rdmastack::rdmanode
