#pragma once
// What a container's securityContext (over its pod's) and its image's User amount to, by the
// kubelet's and containerd's rules: the user and groups it runs as, whether its root is read-only,
// its capability set, privileged mode and no_new_privs. A refusal is what the kubelet reports as
// CreateContainerConfigError (runAsNonRoot with a root or unverifiable image user).

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "operator/k8s/json_object.h"

namespace rdmastack::sim {

struct ContainerSecurity {
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::vector<uint32_t> additional_gids;  // supplementalGroups, fsGroup
  bool read_only_root = false;
  bool privileged = false;
  bool no_new_privileges = false;
  std::vector<std::string> capabilities;  // "CAP_CHOWN", ...; bounding = effective = permitted
};

// containerd's default set for a container that asks for nothing.
const std::vector<std::string>& DefaultCapabilities();
// Every capability the kernels we run on know, in bit order.
const std::vector<std::string>& AllCapabilities();
// The capabilities in this process's bounding set (what a container can be given at all; a
// sandboxed build host may lack some, e.g. CAP_SYS_RESOURCE).
std::vector<std::string> BoundingCapabilities();

// `image_user`: the image config's User ("uid", "uid:gid", "name", "name:group" or "");
// `passwd`/`group`: the image's /etc/passwd and /etc/group ("" when it has none), for names.
// `held`: the capabilities the runtime holds; privileged and "ALL" mean these, and no container
// gets one outside them (containerd's rule).
StatusOr<ContainerSecurity> ResolveSecurity(const k8s::JsonObject& pod,
                                            const k8s::JsonObject& container,
                                            const std::string& image_user,
                                            const std::string& passwd, const std::string& group,
                                            const std::vector<std::string>& held);

}  // namespace rdmastack::sim
