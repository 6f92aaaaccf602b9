#pragma once
// The argv a container runs, by Kubernetes' rules: `command` replaces the image's ENTRYPOINT,
// `args` replaces its CMD (and a `command` without `args` drops the CMD), both $(VAR)-expanded
// with the container's environment.

#include <string>
#include <vector>

#include "base/status.h"
#include "operator/k8s/json_object.h"
#include "tests/harness/node-runtime/env_list.h"
#include "tests/harness/node-runtime/image_table.h"

namespace rdmastack::sim {

StatusOr<std::vector<std::string>> ContainerArgv(const k8s::JsonObject& container,
                                                 const ImageSpec& image, const EnvList& env);

}  // namespace rdmastack::sim
