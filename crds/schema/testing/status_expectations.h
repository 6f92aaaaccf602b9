#pragma once
// For the tests that compute statuses: a computed status must be valid for its CRD's schema as it
// is, without the writer's fitting (status_fit.h), since every fit is a bug upstream. The status
// tests' helpers put each status they compute through this, so that every table case is checked.

#include "crds/types/types.h"

namespace rdmastack::crd::testing {

// A test failure (not fatal) naming each fix the status would need.
void ExpectValidStatus(const GatewayPoolStatus& status);
void ExpectValidStatus(const ClientProfileStatus& status);
void ExpectValidStatus(const RdmaNodeStatus& status);

}  // namespace rdmastack::crd::testing
