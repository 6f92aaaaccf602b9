// `cluster.sh up` with explicit node counts and fixtures on a cluster of its own, and `down`, which
// must leave no process, namespace or bridge behind; bad node flags are one-line errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/integration/sim/sim_cluster.h"

namespace rdmastack::testing {
namespace {

using std::chrono::seconds;

constexpr int kOffset = 700;  // 198.18.188.0/24

std::vector<std::string> Env(const std::string& cluster) {
  return {"env", "RDMASTACK_CLUSTER=" + cluster,
          "RDMASTACK_PORT_OFFSET=" + std::to_string(kOffset)};
}

CommandResult Script(const ClusterEnv& env, const std::string& cluster,
                     std::vector<std::string> args) {
  std::vector<std::string> argv = Env(cluster);
  argv.push_back(env.cluster_script);
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(SimClusterLifecycleTest, BadNodeFlagsAreOneLineErrors) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  const std::string cluster = UniqueName("simbad");
  struct Case {
    std::vector<std::string> args;
    std::string want;
  } cases[] = {
      {{"up", "--nodes", "2", "--gpu-nodes", "1"},
       "use either --nodes or --storage-nodes/--gpu-nodes"},
      {{"up", "--storage-nodes", "x"}, "--storage-nodes needs a number"},
      {{"up", "--storage-nodes", "1", "--gpu-nodes", "1", "--node-fixture",
        "gpu-node-5=node-without-rdma"},
       "--node-fixture names nodes this cluster does not have: gpu-node-5"},
      {{"up", "--storage-nodes", "1", "--node-fixture", "stg-node-0=no-such-fixture"},
       "node fixture 'no-such-fixture' not found"},
      {{"up", "--node-fixture", "oops"}, "--node-fixture needs NODE=FIXTURE"},
  };
  for (const Case& c : cases) {
    CommandResult r = Script(*env, cluster, c.args);
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find(c.want), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  // Nothing was started or configured.
  EXPECT_EQ(RunCommand({"ip", "netns", "list"}).out.find("rdmastack-" + cluster),
            std::string::npos);
}

TEST(SimClusterLifecycleTest, UpWithFixturesThenDownLeavesNothing) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  const std::string cluster = UniqueName("simlc");
  CommandResult up = Script(*env, cluster,
                            {"up", "--storage-nodes", "1", "--gpu-nodes", "2", "--node-fixture",
                             "gpu-node-1=gpu-client-h100-peermem-mofed"});
  ASSERT_EQ(up.exit_code, 0) << up.err;
  // Whatever happens below, the cluster goes.
  struct Down {
    const ClusterEnv& env;
    std::string cluster;
    std::string state_dir;
    ~Down() {
      Script(env, cluster, {"down"});
      if (!state_dir.empty()) std::filesystem::remove_all(state_dir);
    }
  } down_guard{*env, cluster, ""};

  CommandResult exports = Script(*env, cluster, {"env"});
  auto value = [&](const std::string& name) {
    size_t at = exports.out.find("export " + name + "=");
    if (at == std::string::npos) return std::string();
    at += 8 + name.size();
    return exports.out.substr(at, exports.out.find('\n', at) - at);
  };
  const std::string kubeconfig = value("RDMASTACK_KUBECONFIG");
  ASSERT_FALSE(kubeconfig.empty()) << exports.out;
  down_guard.state_dir = std::filesystem::path(kubeconfig).parent_path().string();
  auto table = sim::LoadNodeTable(value("RDMASTACK_SIM_NODES"));
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  ASSERT_EQ(table->size(), 3u);
  EXPECT_EQ(table->at("stg-node-0").address, "198.18.188.10");
  EXPECT_EQ(table->at("gpu-node-1").address, "198.18.188.12");
  // Defaults per role, and the fixture asked for.
  auto fixture = [&](const std::string& node) {
    return ReadFile(table->at(node).host_root + "/etc/rdmastack-fixture/name");
  };
  EXPECT_EQ(fixture("stg-node-0"), "storage-cx6-ib-ipoib-bond0-el8-inbox\n");
  EXPECT_EQ(fixture("gpu-node-0"), "gpu-client-rtxa6000-bar1-256m-peermem-mofed\n");
  EXPECT_EQ(fixture("gpu-node-1"), "gpu-client-h100-peermem-mofed\n");
  EXPECT_TRUE(std::filesystem::exists(table->at("gpu-node-1").host_root + "/sys/class/infiniband"));
  CommandResult ips = env->KubectlAs(
      kubeconfig,
      {"get", "nodes", "-o",
       "jsonpath={range "
       ".items[*]}{.metadata.name}={.status.addresses[?(@.type==\"InternalIP\")].address} "
       "{.metadata.annotations.sim\\.rdmastack\\.io/fixture}{\"\\n\"}{end}"});
  EXPECT_NE(ips.out.find("gpu-node-1=198.18.188.12 gpu-client-h100-peermem-mofed"),
            std::string::npos)
      << ips.out;

  // One running process on a node, to see that `down` ends it.
  const std::string pod = R"(apiVersion: v1
kind: Pod
metadata: {name: sleeper, namespace: default, labels: {rdmastack.io/simulate: run}}
spec:
  nodeSelector: {kubernetes.io/hostname: stg-node-0}
  containers: [{name: c, image: "rdmastack.invalid/host:1", command: [sleep, "3600"]}]
)";
  // The first pod waits for the namespace's default ServiceAccount, which the controller manager
  // creates shortly after start-up.
  CommandResult applied;
  ASSERT_TRUE(Eventually(
      [&] {
        return (applied = env->KubectlAs(kubeconfig, {"apply", "-f", "-"}, pod)).exit_code == 0;
      },
      seconds(30)))
      << applied.err;
  const std::string netns = table->at("stg-node-0").netns;
  ASSERT_TRUE(Eventually([&] { return !ProcessesInNetns(netns).empty(); }, seconds(60)));
  const std::vector<pid_t> pids = ProcessesInNetns(netns);
  const std::string bridge = "rs188-" + cluster.substr(0, 9);

  EXPECT_EQ(RunCommand({"ip", "link", "show", bridge}).exit_code, 0) << bridge;
  // A node of a cluster named "<cluster>-b" beside it (scripts/test.sh runs "test" and "test-b"):
  // its namespace name also starts with "rdmastack-<cluster>-", and `down` must leave it alone.
  const std::string neighbour = "rdmastack-" + cluster + "-b-stg-node-0";
  ASSERT_EQ(RunCommand({"ip", "netns", "add", neighbour}).exit_code, 0) << neighbour;
  struct DelNetns {
    std::string name;
    ~DelNetns() { RunCommand({"ip", "netns", "del", name}); }
  } neighbour_guard{neighbour};
  CommandResult down = Script(*env, cluster, {"down"});
  ASSERT_EQ(down.exit_code, 0) << down.err;
  for (pid_t pid : pids) EXPECT_FALSE(ProcessAlive(pid)) << pid;
  const std::string netns_left = RunCommand({"ip", "netns", "list"}).out;
  for (const auto& [node, entry] : *table)
    EXPECT_EQ(netns_left.find(entry.netns), std::string::npos) << entry.netns << " still exists";
  EXPECT_NE(netns_left.find(neighbour), std::string::npos)
      << "down removed " << neighbour << ", another cluster's namespace";
  EXPECT_NE(RunCommand({"ip", "link", "show", bridge}).exit_code, 0) << bridge << " still exists";
  EXPECT_EQ(RunCommand({"ip", "-4", "-o", "addr", "show"}).out.find("198.18.188."),
            std::string::npos);
  CommandResult status = Script(*env, cluster, {"status"});
  EXPECT_NE(status.exit_code, 0);
  EXPECT_NE(status.out.find("node-runtime             stopped"), std::string::npos) << status.out;
}

}  // namespace
}  // namespace rdmastack::testing
