#include "crds/schema/testing/status_expectations.h"

#include <gtest/gtest.h>

#include "crds/schema/status_fit.h"

namespace rdmastack::crd::testing {
namespace {

template <CustomResource T>
void Expect(const StatusOf<T>& status) {
  T resource;
  resource.metadata.name = "status-under-test";
  resource.status = status;
  auto fitted = FitStatusPatch(resource);
  if (!fitted.ok()) {
    ADD_FAILURE() << KindOf<T>() << " status cannot be written: " << fitted.status().ToString();
    return;
  }
  EXPECT_TRUE(fitted->fixes().empty())
      << KindOf<T>()
      << " status is not valid for its CRD schema (crds/*.yaml); the writer would fit it: "
      << DescribeFixes(fitted->fixes());
}

}  // namespace

void ExpectValidStatus(const GatewayPoolStatus& status) {
  Expect<GatewayPool>(status);
}
void ExpectValidStatus(const ClientProfileStatus& status) {
  Expect<ClientProfile>(status);
}
void ExpectValidStatus(const RdmaNodeStatus& status) {
  Expect<RdmaNode>(status);
}

}  // namespace rdmastack::crd::testing
