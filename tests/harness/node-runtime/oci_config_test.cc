#include "tests/harness/node-runtime/oci_config.h"

#include <gtest/gtest.h>

#include "tests/harness/node-runtime/test_objects.h"

namespace rdmastack::sim {
namespace {

OciContainerConfig Agent() {
  OciContainerConfig c;
  c.argv = {"/usr/local/bin/rdmastack-agent", "run", "--root", "/host"};
  c.env = {"PATH=/usr/bin", "NODE_NAME=stg-node-0"};
  c.working_dir = "/";
  c.hostname = "stg-node-0";
  c.netns_path = "/run/netns/rdmastack-sim-stg-node-0";
  c.security.uid = 0;
  c.security.read_only_root = true;
  c.security.no_new_privileges = true;
  c.security.capabilities = DefaultCapabilities();
  c.mounts = {{"/nodes/stg-node-0/root", "/host", true},
              {"/pod/volumes/token", "/var/run/t", false}};
  c.cgroups_path = "/rdmastack-sim/uid-agent-0";
  return c;
}

std::vector<std::string> NamespaceTypes(const k8s::JsonObject& config) {
  std::vector<std::string> out;
  for (const auto& n : config.GetArray({"linux", "namespaces"}))
    out.push_back(n.GetString({"type"}).value_or(""));
  return out;
}

TEST(OciConfig, CarriesTheProcessTheRootAndTheNodesNetworkNamespace) {
  const k8s::JsonObject config = ParseJson(RenderOciConfig(Agent()));
  EXPECT_EQ(config.GetString({"root", "path"}), "rootfs");
  EXPECT_EQ(config.GetBool({"root", "readonly"}), true);
  EXPECT_EQ(config.GetBool({"process", "noNewPrivileges"}), true);
  EXPECT_EQ(config.GetInt({"process", "user", "uid"}), 0);
  EXPECT_EQ(config.GetString({"process", "args", "0"}), "/usr/local/bin/rdmastack-agent");
  EXPECT_EQ(config.GetString({"process", "env", "1"}), "NODE_NAME=stg-node-0");
  EXPECT_EQ(config.GetString({"hostname"}), "stg-node-0");
  EXPECT_EQ(NamespaceTypes(config),
            (std::vector<std::string>{"mount", "uts", "ipc", "pid", "network"}));
  EXPECT_EQ(config.GetString({"linux", "namespaces", "4", "path"}),
            "/run/netns/rdmastack-sim-stg-node-0");
  EXPECT_EQ(config.GetArray({"process", "capabilities", "effective"}).size(),
            DefaultCapabilities().size());
  EXPECT_EQ(config.GetArray({"process", "capabilities", "inheritable"}).size(), 0u);
  EXPECT_EQ(config.GetBool({"linux", "resources", "devices", "0", "allow"}), false);
  EXPECT_FALSE(config.GetArray({"linux", "maskedPaths"}).empty());
}

TEST(OciConfig, VolumesAreBindMountsWithTheirAccessMode) {
  const k8s::JsonObject config = ParseJson(RenderOciConfig(Agent()));
  std::map<std::string, k8s::JsonObject> by_target;
  for (const auto& m : config.GetArray({"mounts"}))
    by_target[m.GetString({"destination"}).value_or("")] = m;
  ASSERT_EQ(by_target.count("/host"), 1u);
  EXPECT_EQ(by_target["/host"].GetString({"source"}), "/nodes/stg-node-0/root");
  EXPECT_EQ(by_target["/host"].GetString({"options", "1"}), "ro");
  EXPECT_EQ(by_target["/var/run/t"].GetString({"options", "1"}), "rw");
  EXPECT_EQ(by_target["/sys"].GetString({"options", "3"}), "ro");
  EXPECT_EQ(by_target["/dev"].GetString({"type"}), "tmpfs");
}

TEST(OciConfig, HostPidAndPrivilegedChangeNamespacesDevicesAndMasks) {
  OciContainerConfig c = Agent();
  c.host_pid = true;
  c.netns_path.clear();
  c.security.privileged = true;
  c.security.capabilities = AllCapabilities();
  const k8s::JsonObject config = ParseJson(RenderOciConfig(c));
  EXPECT_EQ(NamespaceTypes(config), (std::vector<std::string>{"mount", "uts", "ipc"}));
  EXPECT_EQ(config.GetBool({"linux", "resources", "devices", "0", "allow"}), true);
  EXPECT_TRUE(config.GetArray({"linux", "maskedPaths"}).empty());
  bool host_dev = false;
  for (const auto& m : config.GetArray({"mounts"})) {
    if (m.GetString({"destination"}) == "/dev") host_dev = m.GetString({"type"}) == "bind";
  }
  EXPECT_TRUE(host_dev);
}

}  // namespace
}  // namespace rdmastack::sim
