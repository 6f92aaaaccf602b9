// How long a simulated node takes to start a container from one of our OCI images (label bench;
// docs/bench-sim.md): the image store's first pull of an archive (unpack), a pull of the cached
// image, and whole container runs of the agent image's entrypoint (`rdmastack-agent --version`)
// through the shim and runc, as the pod worker starts them (bundle, overlay root, runc run), with
// the agent DaemonSet's securityContext. Needs root, runc and <build>/images (scripts/images.sh);
// skips otherwise.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/harness/cluster_env.h"
#include "tests/harness/node-runtime/container_process.h"
#include "tests/harness/node-runtime/exec_path.h"
#include "tests/harness/node-runtime/launch_spec.h"
#include "tests/harness/node-runtime/oci_config.h"
#include "tests/harness/node-runtime/oci_image_store.h"
#include "tests/harness/node-runtime/security_context.h"

namespace rdmastack::sim {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double Ms(Clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(OciStartBench, ACachedImageStartsWellUnderASecond) {
  const std::string images = ::rdmastack::testing::BinaryDir() + "/images";
  const std::string shim = ::rdmastack::testing::BinaryDir() + "/bin/rdmastack-node-shim";
  StatusOr<std::string> runc = ResolveExecutable("runc", {"PATH=/usr/sbin:/usr/bin:/sbin:/bin"});
  if (::geteuid() != 0 || !runc.ok() || !fs::exists(images + "/agent.oci.tar")) {
    GTEST_SKIP() << "needs root, runc and " << images << "/agent.oci.tar (scripts/images.sh)";
  }
  const std::string dir =
      fs::temp_directory_path() / ("oci-start-bench-" + std::to_string(getpid()));
  fs::remove_all(dir);
  OciImageStore store(images, dir + "/images");
  const std::string ref = "ghcr.io/rdmastack/agent:" RDMASTACK_VERSION;

  const auto t0 = Clock::now();
  StatusOr<OciImage> first = store.Pull(ref);
  const auto t1 = Clock::now();
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  StatusOr<OciImage> cached = store.Pull(ref);
  const auto t2 = Clock::now();
  ASSERT_TRUE(cached.ok());
  EXPECT_EQ(cached->rootfs, first->rootfs);

  // The agent DaemonSet's container: privileged, read-only root, the image's user (root).
  const k8s::JsonObject pod =
      *k8s::JsonObject::Parse(R"({"metadata":{"namespace":"b","name":"p"}})");
  const k8s::JsonObject container = *k8s::JsonObject::Parse(
      R"({"name":"agent","securityContext":{"privileged":true,"readOnlyRootFilesystem":true}})");
  StatusOr<ContainerSecurity> security =
      ResolveSecurity(pod, container, cached->user, "", "", BoundingCapabilities());
  ASSERT_TRUE(security.ok()) << security.status().ToString();

  constexpr int kRuns = 10;
  std::vector<double> runs;
  for (int i = 0; i < kRuns; ++i) {
    const auto start = Clock::now();
    StatusOr<OciImage> pulled = store.Pull(ref);  // what each pod start does
    ASSERT_TRUE(pulled.ok());
    const std::string run_dir = dir + "/run-" + std::to_string(i);
    LaunchSpec spec;
    spec.scratch_dir = run_dir + "/scratch";
    spec.oci_bundle = spec.scratch_dir + "/bundle";
    fs::create_directories(spec.oci_bundle);
    spec.oci_lower_root = pulled->rootfs;
    spec.runc = *runc;
    spec.runc_root = dir + "/runc";
    spec.container_id = "bench-" + std::to_string(i);
    spec.argv = {pulled->config.entrypoint.front(), "--version"};
    spec.env = {"PATH=/usr/local/bin:/usr/bin:/bin"};
    spec.log_file = run_dir + "/log";
    spec.pid_file = run_dir + "/pid";
    spec.error_file = run_dir + "/error";
    OciContainerConfig c;
    c.argv = spec.argv;
    c.env = spec.env;
    c.security = *security;
    {
      std::ofstream out(spec.oci_bundle + "/config.json");
      out << RenderOciConfig(c);
    }
    {
      std::ofstream out(run_dir + "/spec.json");
      out << LaunchSpecToJson(spec);
    }
    StatusOr<ContainerProcess> p =
        ContainerProcess::Start(shim, run_dir + "/spec.json", spec.pid_file);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    const int code = p->Wait();
    runs.push_back(Ms(Clock::now() - start));
    ASSERT_EQ(code, 0) << ReadAll(spec.log_file) << ReadAll(spec.error_file);
    EXPECT_NE(ReadAll(spec.log_file).find("rdmastack-agent " RDMASTACK_VERSION), std::string::npos)
        << ReadAll(spec.log_file);
  }
  std::sort(runs.begin(), runs.end());
  std::printf(
      "oci-start: first pull (unpack) %.0f ms, cached pull %.2f ms; container run "
      "(pull + bundle + runc run of `rdmastack-agent --version` to its exit), %d runs: "
      "min %.0f ms, median %.0f ms, max %.0f ms\n",
      Ms(t1 - t0), Ms(t2 - t1), kRuns, runs.front(), runs[kRuns / 2], runs.back());
  // The issue's bound, kept here as a sanity check on the measurement rather than a timed test:
  // a start that takes seconds means the cache was not used.
  EXPECT_LT(runs[kRuns / 2], 1000.0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rdmastack::sim
