#include "controllers/common/node_access.h"

#include "controllers/common/render.h"

namespace rdmastack::controllers {

k8s::JsonObject HostRootVolume() {
  return HostPathVolume("host", "/", "Directory");
}

k8s::JsonObject HostRootMount() {
  k8s::JsonBuilder m(Mount("host", "/host", true));
  m.SetString({"mountPropagation"}, "HostToContainer");
  return std::move(m).Build();
}

k8s::JsonObject DevInfinibandVolume() {
  return HostPathVolume("dev-infiniband", "/dev/infiniband", "DirectoryOrCreate");
}

k8s::JsonObject DevInfinibandMount() {
  return Mount("dev-infiniband", "/dev/infiniband", true);
}

k8s::JsonObject LiveProbeSecurityContext() {
  return Obj(R"({"privileged":true,"readOnlyRootFilesystem":true})");
}

}  // namespace rdmastack::controllers
