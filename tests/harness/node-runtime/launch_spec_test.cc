#include "tests/harness/node-runtime/launch_spec.h"

#include <gtest/gtest.h>

#include "tests/harness/node-runtime/exec_path.h"
#include "tests/harness/node-runtime/mount_table.h"

namespace rdmastack::sim {
namespace {

TEST(LaunchSpec, RoundTripsThroughJson) {
  LaunchSpec spec;
  spec.netns_path = "/run/netns/rdmastack-sim-stg-node-0";
  spec.hostname = "stg-node-0";
  spec.host_pid = true;
  spec.scratch_dir = "/s/scratch-0";
  spec.mounts = {{"/nodes/stg-node-0/root", "/host", true}, {"/p/v/tok", "/var/run/x y", false}};
  spec.argv = {"/app/versitygw", "--port", "198.18.200.10:7070", "posix", "/data"};
  spec.env = {"PATH=/usr/bin", "QUOTE=\"a\\b\""};
  spec.working_dir = "/app";
  spec.log_file = "/l/0.log";
  spec.pid_file = "/s/pid";
  spec.error_file = "/s/error";
  auto back = LaunchSpecFromJson(LaunchSpecToJson(spec));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, spec);

  spec.oci_bundle = "/s/scratch-0/bundle";
  spec.oci_lower_root = "/images/abc/rootfs";
  spec.runc = "/usr/sbin/runc";
  spec.runc_root = "/state/runc";
  spec.container_id = "uid-agent-0";
  back = LaunchSpecFromJson(LaunchSpecToJson(spec));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, spec);
  spec.runc.clear();
  EXPECT_EQ(LaunchSpecFromJson(LaunchSpecToJson(spec)).status().message(),
            "launch spec: ociBundle needs ociLowerRoot, runc and containerID");
}

TEST(LaunchSpec, RefusesIncompleteSpecs) {
  EXPECT_FALSE(LaunchSpecFromJson("[]").ok());
  EXPECT_FALSE(LaunchSpecFromJson(R"({"scratchDir":"/s","logFile":"/l"})").ok());  // no argv
  EXPECT_FALSE(LaunchSpecFromJson(R"({"argv":["x"],"logFile":"/l"})").ok());       // no scratch
  EXPECT_FALSE(
      LaunchSpecFromJson(
          R"({"argv":["x"],"scratchDir":"/s","logFile":"/l","mounts":[{"source":"/a","target":"rel"}]})")
          .ok());
}

TEST(TopLevelMounts, ListsDirectChildrenOfTheRootMount) {
  const char kMountinfo[] =
      "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
      "24 27 0:6 / /dev rw,relatime - devtmpfs devtmpfs rw\n"
      "25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw\n"
      "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
      "28 27 0:25 / /mnt/with\\040space ro - tmpfs t ro\n";
  EXPECT_EQ(TopLevelMounts(kMountinfo),
            (std::vector<std::string>{"/proc", "/dev", "/mnt/with space"}));
}

TEST(ResolveExecutable, SearchesTheContainersPath) {
  EXPECT_EQ(*ResolveExecutable("/app/x", {}), "/app/x");
  EXPECT_EQ(*ResolveExecutable("sh", {"PATH=/nonexistent:/bin"}), "/bin/sh");
  auto missing = ResolveExecutable("no-such-tool-here", {"PATH=/bin"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            "exec: \"no-such-tool-here\": executable file not found in $PATH (/bin)");
}

}  // namespace
}  // namespace rdmastack::sim
