#pragma once
// The container shape node_access.h gives a DaemonSet that probes its node live, asserted once
// for the renderers that use it (agent and client DaemonSets).

#include <gtest/gtest.h>

#include <string>

#include "operator/k8s/json_object.h"

namespace rdmastack::controllers::testing {

inline void ExpectLiveProbeAccess(const k8s::JsonObject& container) {
  EXPECT_EQ(container.Get({"securityContext"})->Serialize(),
            R"({"privileged":true,"readOnlyRootFilesystem":true})");
  std::string mounts;
  for (const auto& m : container.GetArray({"volumeMounts"})) mounts += m.Serialize() + "\n";
  EXPECT_NE(
      mounts.find(
          R"({"name":"host","mountPath":"/host","readOnly":true,"mountPropagation":"HostToContainer"})"),
      std::string::npos)
      << mounts;
  EXPECT_NE(
      mounts.find(R"({"name":"dev-infiniband","mountPath":"/dev/infiniband","readOnly":true})"),
      std::string::npos)
      << mounts;
}

}  // namespace rdmastack::controllers::testing
