// End to end, through the real gateways: the rdmastack-operator process renders the seed
// GatewayPool into a DaemonSet; on each simulated storage node the launcher checks the pins
// against the fake libcuobjserver the init container copied in, resolves the RDMA address from the
// node's fixture, and execs the vgwrdma stand-in, which runs the real versitygw on the node's
// address. S3 requests go through the EndpointSlices the operator publishes.

#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "base/sha256.h"
#include "tests/e2e/common/pool_e2e_fixture.h"
#include "tests/harness/scope_exit.h"

namespace rdmastack::testing {
namespace {

using namespace std::chrono_literals;

class GatewayPoolE2eTest : public PoolE2eTest {};

TEST_F(GatewayPoolE2eTest, SeedPoolGoesReadyServesS3EverywhereAndCleansUp) {
  std::vector<std::string> storage;
  const std::string missing = NodesWithFixture("storage-cx6-ib-ipoib-bond0-el8-inbox", 0, &storage);
  if (!missing.empty() || storage.size() < 4)
    GTEST_SKIP()
        << "needs 4 nodes of storage-cx6-ib-ipoib-bond0-el8-inbox (scripts/test.sh makes them)";
  // The seed sample as a user applies it: Secret + GatewayPool, unchanged.
  Start("gwp-seed", ReadSample("gatewaypool-kvcache.yaml"));
  if (HasFatalFailure()) return;

  CommandResult wait = env_->Kubectl(
      {"wait", "--for=condition=Ready", "gwp/kvcache", "-n", ns_->name(), "--timeout=240s"});
  ASSERT_EQ(wait.exit_code, 0) << wait.err << Diagnostics();
  EXPECT_EQ(PoolCondition("kvcache", "LibraryCompatible"), "True");
  EXPECT_EQ(PoolField("kvcache", "{.status.library}"), "1.2.0.68");

  // Every bond0 storage node publishes a ready endpoint at its own address, port 7071.
  const std::vector<SliceEndpoint> endpoints = AwaitReadyEndpoints("kvcache", storage.size());
  ASSERT_FALSE(endpoints.empty()) << Diagnostics();
  for (const SliceEndpoint& e : endpoints) {
    ASSERT_TRUE(nodes_.count(e.node)) << e.node;
    EXPECT_EQ(e.ip, nodes_.at(e.node).address) << e.node;
    EXPECT_EQ(e.port, 7071);
    EXPECT_EQ(e.slice, "kvcache-gateway-v1-0");
  }
  // Nodes the seed cannot use are listed with their reasons and run no gateway.
  for (const auto& [name, fixture] : fixtures_) {
    if (fixture == "gateway-roce-v2-gid3-doca") {
      EXPECT_EQ(FailingReason("kvcache", name), "InterfaceNotFound") << name;
    }
    if (fixture == "storage-cx6-ib-port-down") {
      EXPECT_NE(FailingReason("kvcache", name), "") << name;
    }
  }
  EXPECT_EQ(PoolCondition("kvcache", "NodesVerified"), "False");

  // S3 PUT then GET through every published endpoint returns the same bytes, stored in that
  // node's backend directory.
  for (const SliceEndpoint& e : endpoints) {
    s3::S3Client client = Client(e);
    // The backend outlives pools (it is the user's data): a bucket name of this run's own.
    const std::string bucket = "/" + ns_->name() + "-" + e.node, body = RandomBytes(64 * 1024);
    auto made = client.Send({.method = "PUT", .path = bucket});
    ASSERT_TRUE(made.ok() && made->status == 200)
        << e.node << ": " << (made.ok() ? made->body : made.status().ToString());
    auto put = client.Send({.method = "PUT", .path = bucket + "/object", .body = body});
    ASSERT_TRUE(put.ok() && put->status == 200) << e.node;
    auto got = client.Send({.method = "GET", .path = bucket + "/object"});
    ASSERT_TRUE(got.ok()) << e.node;
    EXPECT_EQ(got->status, 200);
    EXPECT_TRUE(got->body == body) << e.node << ": bytes differ";
    EXPECT_TRUE(std::filesystem::exists(nodes_.at(e.node).host_root +
                                        "/lustre/agent/vol0/kvcache-s3-" + e.node + bucket +
                                        "/object"))
        << e.node;
  }

  // A restarted operator finds everything as it left it and writes nothing.
  operator_->Signal(SIGTERM);
  ASSERT_EQ(operator_->WaitExit(40s), 0) << operator_->Output();
  StartOperator("gwp-seed-restarted");
  ASSERT_TRUE(Eventually(
      [&] { return operator_->Output().find("accepted agent") != std::string::npos; }, 60s))
      << operator_->Output();
  std::this_thread::sleep_for(10s);
  EXPECT_EQ(OperatorWrites().size(), 0u) << Describe(OperatorWrites()) << operator_->Output();
  EXPECT_EQ(PoolCondition("kvcache", "Ready"), "True");

  // The pool's IAM directory (its profiles' S3 users) is on each node it ran on. Beside it: another
  // pool's directory, and inside it a link to a file of the host's; the cleanup removes the link,
  // never what it names, and nothing of the other pool's.
  const std::string uid = PoolField("kvcache", "{.metadata.uid}");
  const std::string iam_root = "/var/lib/rdmastack/gateway-iam/";
  const std::string iam_dir = iam_root + ns_->name() + ".kvcache." + uid;
  for (const std::string& node : storage) {
    const std::string host = nodes_.at(node).host_root;
    ASSERT_TRUE(std::filesystem::is_directory(host + iam_dir)) << node << ": " << iam_dir;
    std::filesystem::create_directories(host + iam_root + "other.pool.uid");
    std::ofstream(host + iam_root + "other.pool.uid/users.json") << "{}";
    std::ofstream(host + "/var/lib/rdmastack/keep-me") << "x";
    std::filesystem::create_symlink(host + "/var/lib/rdmastack/keep-me", host + iam_dir + "/link");
  }

  // Deleting the pool removes what the operator made; the backend directories stay.
  CommandResult del =
      env_->Kubectl({"delete", "gwp", "kvcache", "-n", ns_->name(), "--timeout=60s"});
  ASSERT_EQ(del.exit_code, 0) << del.err << Diagnostics();
  EXPECT_TRUE(Eventually(
      [&] {
        return Get({"get", "ds,endpointslices,services", "-n", ns_->name(), "-l",
                    "gatewaypool.rdmastack.io/name=kvcache", "-o", "name"})
            .empty();
      },
      60s))
      << Diagnostics();
  for (const std::string& node : storage) {
    EXPECT_EQ(Get({"get", "node", node, "-o",
                   "jsonpath={.metadata.labels.gwp\\.rdmastack\\.io/" + ns_->name() +
                       "\\.kvcache\\.v1}"}),
              "")
        << node;
    EXPECT_TRUE(std::filesystem::exists(nodes_.at(node).host_root +
                                        "/lustre/agent/vol0/kvcache-s3-" + node + "/" +
                                        ns_->name() + "-" + node + "/object"))
        << node;
    const std::string host = nodes_.at(node).host_root;
    EXPECT_FALSE(std::filesystem::exists(host + iam_dir)) << node << ": " << iam_dir;
    EXPECT_TRUE(std::filesystem::exists(host + iam_root + "other.pool.uid/users.json")) << node;
    EXPECT_TRUE(std::filesystem::exists(host + "/var/lib/rdmastack/keep-me")) << node;
    std::filesystem::remove_all(host + iam_root + "other.pool.uid");
    std::filesystem::remove(host + "/var/lib/rdmastack/keep-me");
  }
  EXPECT_EQ(Get({"get", "events", "-n", ns_->name(), "--field-selector",
                 "reason=IamCleanupIncomplete", "-o", "name"}),
            "");
}

// A copy of a serving pool in another namespace (same nodes, ports and gateway root) is refused
// by name; the older pool serves on untouched, and the copy starts once the older one is gone.
TEST_F(GatewayPoolE2eTest, ACollidingNewerPoolIsRefusedAndTheOlderServesOn) {
  std::vector<std::string> storage;
  if (const std::string missing =
          NodesWithFixture("storage-cx6-ib-ipoib-bond0-el8-inbox", 2, &storage);
      !missing.empty())
    GTEST_SKIP() << missing << " (scripts/test.sh makes them)";
  const std::string pool_yaml = SeedPool("    maxParallel: 1\n");
  Start("gwp-older", pool_yaml);
  if (HasFatalFailure()) return;
  for (const std::string& n : storage)
    ASSERT_EQ(env_->Kubectl({"label", "node", n, selector_label_ + "=in"}).exit_code, 0);
  CommandResult wait = env_->Kubectl(
      {"wait", "--for=condition=Ready", "gwp/kvcache", "-n", ns_->name(), "--timeout=240s"});
  ASSERT_EQ(wait.exit_code, 0) << wait.err << Diagnostics();
  const std::vector<SliceEndpoint> endpoints = AwaitReadyEndpoints("kvcache", storage.size());
  ASSERT_FALSE(endpoints.empty()) << Diagnostics();
  const std::string bucket = "/" + ns_->name() + "-older";
  {
    auto made = Client(endpoints[0]).Send({.method = "PUT", .path = bucket});
    ASSERT_TRUE(made.ok() && made->status == 200) << Diagnostics();
  }
  auto pod_uids = [&] {
    return Get({"get", "pods", "-n", ns_->name(), "-l", "gatewaypool.rdmastack.io/name=kvcache",
                "-o", "jsonpath={.items[*].metadata.uid}"});
  };
  const std::string uids = pod_uids();
  ASSERT_FALSE(uids.empty());

  // The same spec in another namespace.
  TestNamespace newer(*env_, "gwp-newer");
  std::string copy = pool_yaml;
  for (size_t at = copy.find("SELECTOR"); at != std::string::npos; at = copy.find("SELECTOR"))
    copy.replace(at, 8, selector_label_);
  newer.Apply(copy);
  auto newer_field = [&](const std::string& jsonpath) {
    return Get({"get", "gwp", "kvcache", "-n", newer.name(), "-o", "jsonpath=" + jsonpath});
  };
  const std::string verified = "{.status.conditions[?(@.type==\"NodesVerified\")]";
  ASSERT_TRUE(Eventually([&] { return newer_field(verified + ".reason}") == "PoolConflict"; }, 60s))
      << newer_field("{.status}") << Diagnostics();
  const std::string message = newer_field(verified + ".message}");
  EXPECT_NE(message.find("pool " + ns_->name() +
                         "/kvcache, created before this one, holds port "
                         "7071, 19100 on"),
            std::string::npos)
      << message;
  EXPECT_EQ(newer_field("{.status.conditions[?(@.type==\"Ready\")].reason}"), "PoolConflict");
  EXPECT_TRUE(Eventually(
      [&] {
        return !Get({"get", "events", "-n", newer.name(), "--field-selector",
                     "type=Warning,reason=PoolConflict", "-o", "name"})
                    .empty();
      },
      30s));
  // The newer pool started nothing.
  EXPECT_EQ(Get({"get", "ds,pods", "-n", newer.name(), "-o", "name"}), "");
  // The older one is untouched: the same gateway pods, Ready, serving S3 everywhere.
  std::this_thread::sleep_for(5s);
  EXPECT_EQ(pod_uids(), uids);
  EXPECT_EQ(PoolCondition("kvcache", "Ready"), "True");
  EXPECT_EQ(PoolCondition("kvcache", "NodesVerified", "reason"), "AllNodesVerified");
  for (const SliceEndpoint& e : Endpoints("kvcache")) EXPECT_TRUE(Serves(e)) << e.node;

  // The older pool goes: the newer one is reconciled at once and takes the nodes.
  CommandResult del =
      env_->Kubectl({"delete", "gwp", "kvcache", "-n", ns_->name(), "--timeout=90s"});
  ASSERT_EQ(del.exit_code, 0) << del.err << Diagnostics();
  CommandResult ready = env_->Kubectl(
      {"wait", "--for=condition=Ready", "gwp/kvcache", "-n", newer.name(), "--timeout=240s"});
  EXPECT_EQ(ready.exit_code, 0) << ready.err << newer_field("{.status}") << Diagnostics();
  env_->Kubectl({"delete", "gwp", "kvcache", "-n", newer.name(), "--timeout=90s"});
}

// `text` with the first occurrence of each `from` replaced by its `to` (each must occur).
std::string Replaced(std::string text,
                     const std::vector<std::pair<std::string, std::string>>& replacements) {
  for (const auto& [from, to] : replacements) {
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
  }
  return text;
}

std::string EdgePool() {
  return R"(apiVersion: v1
kind: Secret
metadata: {name: edge-root}
stringData: {accessKeyId: kvcache-root, secretAccessKey: change-me-please}
---
apiVersion: rdmastack.io/v1alpha1
kind: GatewayPool
metadata: {name: edge}
spec:
  nodeSelector: {SELECTOR: "in"}
  gateway: {image: "registry.local/rdmastack/vgwrdma:1.8.0-cuobj1", version: 1.8.0}
  serverLibrary: {version: 1.2.0.68, image: "registry.local/rdmastack/libcuobjserver:1.2.0.68"}
  s3: {port: 7075, credentialsSecret: {name: edge-root}}
  rdma: {cidr: 10.10.0.0/24, port: 19105}
  backend: {posix: {hostPath: /lustre/agent/vol0, pathTemplate: "/lustre/agent/vol0/edge-{nodeName}"}}
)";
}

TEST_F(GatewayPoolE2eTest, NodesComeAndGoAndBadInputNeverStopsServing) {
  std::vector<std::string> good, down;
  std::string missing = NodesWithFixture("storage-cx6-ib-ipoib-bond0-el8-inbox", 2, &good);
  if (missing.empty()) missing = NodesWithFixture("storage-cx6-ib-port-down", 1, &down);
  if (!missing.empty()) GTEST_SKIP() << missing << " (scripts/test.sh makes them)";
  // The admin allows the harness's registry and the Lustre tree, nothing else.
  extra_operator_args_ = {"--allow-image=registry.local/rdmastack/",
                          "--allow-backend-path=/lustre/agent"};
  Start("gwp-edge", EdgePool());
  if (HasFatalFailure()) return;

  // One good node and the node whose port is down.
  for (const std::string& n : {good[0], down[0]}) {
    ASSERT_EQ(env_->Kubectl({"label", "node", n, selector_label_ + "=in"}).exit_code, 0);
  }
  ASSERT_TRUE(Eventually([&] { return ReadyEndpointNodes("edge") == std::set{good[0]}; }, 180s))
      << Diagnostics();
  ASSERT_TRUE(Eventually([&] { return !FailingReason("edge", down[0]).empty(); }, 30s))
      << Diagnostics();
  EXPECT_NE(FailingReason("edge", down[0]), "GatewayNotReady");
  EXPECT_EQ(Get({"get", "pods", "-n", ns_->name(), "-l", "gatewaypool.rdmastack.io/name=edge",
                 "--field-selector", "spec.nodeName=" + down[0], "-o", "name"}),
            "");
  EXPECT_EQ(PoolField("edge", "{.status.nodeCounts.readyOfSelected}"), "1/2");

  // Fixing the node brings it in (the cable is seated, the subnet manager gives the port a LID):
  // gateway, endpoint, S3.
  const std::string port = nodes_.at(down[0]).host_root + "/sys/class/infiniband/mlx5_0/ports/1/";
  // Other tests use this node as the fixture has it: put the broken port back at the end.
  struct Restore {
    std::string port;
    std::map<std::string, std::string> saved;
    ~Restore() {
      for (const auto& [file, text] : saved) std::ofstream(port + file, std::ios::trunc) << text;
    }
  } restore{port, {}};
  for (const char* file : {"state", "phys_state", "sm_lid", "lid", "rate"}) {
    std::ifstream in(port + file);
    std::stringstream text;
    text << in.rdbuf();
    restore.saved[file] = text.str();
  }
  for (const auto& [file, text] :
       std::map<std::string, std::string>{{"state", "4: ACTIVE"},
                                          {"phys_state", "5: LinkUp"},
                                          {"sm_lid", "0x1"},
                                          {"lid", "0x13"},
                                          {"rate", "200 Gb/sec (4X HDR)"}}) {
    std::ofstream(port + file, std::ios::trunc) << text << "\n";
  }
  HupAgent(down[0]);
  ASSERT_TRUE(Eventually(
      [&] {
        return ReadyEndpointNodes("edge") == std::set{good[0], down[0]};
      },
      120s))
      << Diagnostics();
  for (const SliceEndpoint& e : Endpoints("edge")) EXPECT_TRUE(Serves(e)) << e.node;

  // Labelling a node into the selector adds its gateway and endpoint; unlabelling removes them.
  ASSERT_EQ(env_->Kubectl({"label", "node", good[1], selector_label_ + "=in"}).exit_code, 0);
  ASSERT_TRUE(Eventually([&] { return ReadyEndpointNodes("edge").count(good[1]) == 1; }, 120s))
      << Diagnostics();
  ASSERT_EQ(env_->Kubectl({"label", "node", good[1], selector_label_ + "-"}).exit_code, 0);
  ASSERT_TRUE(Eventually(
      [&] {
        for (const auto& e : Endpoints("edge"))
          if (e.node == good[1]) return false;
        return Get({"get", "pods", "-n", ns_->name(), "-l", "gatewaypool.rdmastack.io/name=edge",
                    "--field-selector", "spec.nodeName=" + good[1], "-o", "name"})
            .empty();
      },
      90s))
      << Diagnostics();
  std::vector<SliceEndpoint> serving = Endpoints("edge");
  ASSERT_EQ(serving.size(), 2u) << Diagnostics();

  // An incompatible pair: refused with a condition and a Warning event; nothing new is created and
  // the running gateways keep answering.
  const std::string ds_generation = Get(
      {"get", "ds", "edge-gateway-v1", "-n", ns_->name(), "-o", "jsonpath={.metadata.generation}"});
  // (A major move must move both explicit ports too: the schema insists.)
  CommandResult refused_edit =
      env_->Kubectl({"patch", "gwp", "edge", "-n", ns_->name(), "--type=merge", "-p",
                     R"({"spec":{"serverLibrary":{"version":"2.0.0.109"},"s3":{"port":7076},)"
                     R"("rdma":{"port":19106}}})"});
  ASSERT_EQ(refused_edit.exit_code, 0) << refused_edit.err;
  ASSERT_TRUE(Eventually(
      [&] { return PoolCondition("edge", "LibraryCompatible", "reason") == "IncompatiblePair"; },
      30s))
      << Diagnostics();
  EXPECT_EQ(PoolCondition("edge", "LibraryCompatible"), "False");
  EXPECT_NE(PoolCondition("edge", "LibraryCompatible", "message").find("2.0.0.109"),
            std::string::npos);
  EXPECT_TRUE(Eventually(
      [&] {
        return Get({"get", "events", "-n", ns_->name(), "--field-selector",
                    "reason=IncompatiblePair,type=Warning", "-o", "name"}) != "";
      },
      30s));
  std::this_thread::sleep_for(3s);
  EXPECT_EQ(Get({"get", "ds", "-n", ns_->name(), "-l", "gatewaypool.rdmastack.io/name=edge", "-o",
                 "name"}),
            "daemonset.apps/edge-gateway-v1\n")
      << "no DaemonSet for the refused pair";
  EXPECT_EQ(Get({"get", "ds", "edge-gateway-v1", "-n", ns_->name(), "-o",
                 "jsonpath={.metadata.generation}"}),
            ds_generation);
  for (const SliceEndpoint& e : serving) EXPECT_TRUE(Serves(e)) << e.node << " stopped serving";
  CommandResult reverted =
      env_->Kubectl({"patch", "gwp", "edge", "-n", ns_->name(), "--type=merge", "-p",
                     R"({"spec":{"serverLibrary":{"version":"1.2.0.68"},"s3":{"port":7075},)"
                     R"("rdma":{"port":19105}}})"});
  ASSERT_EQ(reverted.exit_code, 0) << reverted.err;
  ASSERT_TRUE(
      Eventually([&] { return PoolCondition("edge", "LibraryCompatible") == "True"; }, 30s));

  // An image from a registry the admin does not allow: refused NotAllowed with a Warning event;
  // nothing is re-rendered and the gateways serve on.
  const std::string before_image = Get(
      {"get", "ds", "edge-gateway-v1", "-n", ns_->name(), "-o", "jsonpath={.metadata.generation}"});
  CommandResult foreign =
      env_->Kubectl({"patch", "gwp", "edge", "-n", ns_->name(), "--type=merge", "-p",
                     R"({"spec":{"gateway":{"image":"evil.example.com/vgwrdma:1.8.0-cuobj1"}}})"});
  ASSERT_EQ(foreign.exit_code, 0) << foreign.err;
  ASSERT_TRUE(Eventually(
      [&] { return PoolCondition("edge", "LibraryCompatible", "reason") == "NotAllowed"; }, 30s))
      << Diagnostics();
  EXPECT_NE(PoolCondition("edge", "LibraryCompatible", "message")
                .find("gateway.image evil.example.com/vgwrdma:1.8.0-cuobj1 is not from a registry "
                      "the operator allows in namespace " +
                      ns_->name() + " (allowed: registry.local/rdmastack/)"),
            std::string::npos)
      << PoolCondition("edge", "LibraryCompatible", "message");
  EXPECT_TRUE(Eventually(
      [&] {
        return Get({"get", "events", "-n", ns_->name(), "--field-selector",
                    "reason=NotAllowed,type=Warning", "-o", "name"}) != "";
      },
      30s));
  std::this_thread::sleep_for(3s);
  EXPECT_EQ(Get({"get", "ds", "edge-gateway-v1", "-n", ns_->name(), "-o",
                 "jsonpath={.metadata.generation}"}),
            before_image);
  for (const SliceEndpoint& e : serving) EXPECT_TRUE(Serves(e)) << e.node << " stopped serving";
  CommandResult allowed_again = env_->Kubectl(
      {"patch", "gwp", "edge", "-n", ns_->name(), "--type=merge", "-p",
       R"({"spec":{"gateway":{"image":"registry.local/rdmastack/vgwrdma:1.8.0-cuobj1"}}})"});
  ASSERT_EQ(allowed_again.exit_code, 0) << allowed_again.err;
  ASSERT_TRUE(
      Eventually([&] { return PoolCondition("edge", "LibraryCompatible") == "True"; }, 30s));

  // A new pool on a host directory outside the allowed tree (the kubelet's, with its pods'
  // secrets) is refused and starts nothing.
  const std::string edge = EdgePool();
  ns_->Apply(Replaced(edge.substr(edge.find("apiVersion: rdmastack.io")),
                      {{"name: edge}", "name: stray}"},
                       {"/lustre/agent/vol0/edge-", "/var/lib/kubelet/stray-"},
                       {"hostPath: /lustre/agent/vol0", "hostPath: /var/lib/kubelet"},
                       {"SELECTOR", selector_label_}}));
  ASSERT_TRUE(
      Eventually([&] { return PoolCondition("stray", "Ready", "reason") == "NotAllowed"; }, 30s))
      << Diagnostics();
  EXPECT_NE(PoolCondition("stray", "Ready", "message")
                .find("backend.posix.hostPath /var/lib/kubelet is not inside a host directory"),
            std::string::npos);
  EXPECT_EQ(Get({"get", "ds,pods", "-n", ns_->name(), "-l", "gatewaypool.rdmastack.io/name=stray",
                 "-o", "name"}),
            "");
  ASSERT_EQ(env_->Kubectl({"delete", "gwp", "stray", "-n", ns_->name(), "--timeout=60s"}).exit_code,
            0);

  // The root keys' Secret goes away: the gateways keep serving; a condition says why.
  ASSERT_EQ(env_->Kubectl({"delete", "secret", "edge-root", "-n", ns_->name()}).exit_code, 0);
  ASSERT_TRUE(Eventually(
      [&] { return PoolCondition("edge", "Degraded", "reason") == "CredentialsSecretMissing"; },
      30s))
      << Diagnostics();
  EXPECT_EQ(PoolCondition("edge", "Degraded"), "True");
  for (const SliceEndpoint& e : serving) EXPECT_TRUE(Serves(e)) << e.node << " stopped serving";
  EXPECT_EQ(ReadyEndpointNodes("edge").size(), 2u);
}

// backend.posix.requireMount: a node whose backend file system is not mounted runs no gateway
// and gets no directory on its system disk; once the file system is mounted (a tmpfs stands in for
// Lustre) the gateway starts there and serves.
TEST_F(GatewayPoolE2eTest, ARequireMountPoolServesOnlyFromAMountedBackend) {
  std::vector<std::string> nodes;
  const std::string missing = NodesWithFixture("storage-cx6-ib-ipoib-bond0-el8-inbox", 1, &nodes);
  if (!missing.empty()) GTEST_SKIP() << missing << " (scripts/test.sh makes them)";
  const std::string node = nodes[0];
  const std::string backend = nodes_.at(node).host_root + "/lustre/agent/require-mount";
  (void)RunCommand({"umount", "-l", backend});  // what an interrupted run left
  std::filesystem::remove_all(backend);
  std::filesystem::create_directories(backend);
  // The edge pool's shape, on its own ports and on a backend that must be mounted.
  Start("gwp-mount",
        Replaced(EdgePool(), {{"name: edge}", "name: mnt}"},
                              {"port: 7075", "port: 7077"},
                              {"port: 19105", "port: 19107"},
                              {"{posix: {hostPath: /lustre/agent/vol0, pathTemplate: "
                               "\"/lustre/agent/vol0/edge-{nodeName}\"}}",
                               "{posix: {hostPath: /lustre/agent/require-mount, pathTemplate: "
                               "\"/lustre/agent/require-mount/mnt-{nodeName}\", "
                               "requireMount: true}}"}}));
  if (HasFatalFailure()) return;
  ASSERT_EQ(env_->Kubectl({"label", "node", node, selector_label_ + "=in"}).exit_code, 0);

  // Not mounted: the gateway refuses, says why, and creates nothing on the system disk.
  auto refused = [&] {
    return PoolField("mnt", "{.status.failingNodes}").find("is on the node's system disk") !=
           std::string::npos;
  };
  ASSERT_TRUE(Eventually(refused, 120s)) << Diagnostics();
  std::printf("unmounted: %s\n", PoolField("mnt", "{.status.failingNodes[0].message}").c_str());
  EXPECT_TRUE(ReadyEndpointNodes("mnt").empty());
  EXPECT_FALSE(std::filesystem::exists(backend + "/mnt-" + node));

  // Mounted: the restarted gateway serves from the mount.
  CommandResult mounted = RunCommand({"mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", backend});
  ASSERT_EQ(mounted.exit_code, 0) << mounted.err;
  ScopeExit unmount([&] { (void)RunCommand({"umount", "-l", backend}); });
  // (The pod restarts after its crash-loop back-off, as a kubelet's would.)
  ASSERT_TRUE(Eventually([&] { return ReadyEndpointNodes("mnt").size() == 1; }, 180s))
      << Diagnostics();
  const std::vector<SliceEndpoint> serving = Endpoints("mnt");
  ASSERT_EQ(serving.size(), 1u) << Diagnostics();
  EXPECT_TRUE(Serves(serving[0]));
  EXPECT_TRUE(std::filesystem::exists(backend + "/mnt-" + node)) << "the root is on the mount";

  // The backend is unmounted on the node while the gateway serves. The gateway's copy of the
  // mount (mountPropagation None, the default: a private copy) is not pulled from under it: it
  // goes on serving from the same file system, so neither an object written before nor one
  // written after lands on the system disk, and it stays Ready.
  auto put = [&](const std::string& path, const std::string& body) {
    auto r = Client(serving[0]).Send({.method = "PUT", .path = path, .body = body});
    return r.ok() ? r->status : -1;
  };
  auto get = [&](const std::string& path) {
    auto r = Client(serving[0]).Send({.method = "GET", .path = path});
    return r.ok() && r->status == 200 ? r->body : std::string("(failed)");
  };
  ASSERT_EQ(put("/before", ""), 200);
  ASSERT_EQ(put("/before/object", "written while mounted"), 200);
  CommandResult unmounted = RunCommand({"umount", backend});
  ASSERT_EQ(unmounted.exit_code, 0) << "the node's unmount succeeds: " << unmounted.err;
  EXPECT_EQ(get("/before/object"), "written while mounted");
  EXPECT_EQ(put("/before/after-unmount", "written after the unmount"), 200);
  EXPECT_EQ(get("/before/after-unmount"), "written after the unmount");
  EXPECT_TRUE(std::filesystem::is_empty(backend))
      << "nothing reached the system disk under the mount point";
  std::this_thread::sleep_for(25s);  // two readiness periods
  EXPECT_EQ(ReadyEndpointNodes("mnt").size(), 1u) << Diagnostics();

  // A gateway that starts now (a restart, an upgrade) finds no mount and refuses, as at first.
  ASSERT_EQ(env_->Kubectl({"delete", "pods", "-n", ns_->name(), "-l",
                           "gatewaypool.rdmastack.io/name=mnt", "--wait=false"})
                .exit_code,
            0);
  EXPECT_TRUE(Eventually(refused, 120s)) << Diagnostics();
  EXPECT_TRUE(ReadyEndpointNodes("mnt").empty());
  EXPECT_TRUE(std::filesystem::is_empty(backend));
  ASSERT_EQ(env_->Kubectl({"delete", "gwp", "mnt", "-n", ns_->name(), "--timeout=90s"}).exit_code,
            0);
}

// backend.posix.metadata on a backend whose file system keeps no user xattrs (a ramfs stands in
// for a Lustre mounted without user_xattr): Xattr, the default, is refused on the node with
// BackendNoUserXattr before versitygw starts; Sidecar keeps the metadata in a directory of its own
// and None keeps none, and both serve from the same file system.
TEST_F(GatewayPoolE2eTest, ABackendWithoutUserXattrsServesOnlyWithMetadataElsewhere) {
  std::vector<std::string> nodes;
  const std::string missing = NodesWithFixture("storage-cx6-ib-ipoib-bond0-el8-inbox", 1, &nodes);
  if (!missing.empty()) GTEST_SKIP() << missing << " (scripts/test.sh makes them)";
  const std::string node = nodes[0];
  const std::string backend = nodes_.at(node).host_root + "/lustre/agent/no-xattr";
  (void)RunCommand({"umount", "-l", backend});  // what an interrupted run left
  std::filesystem::remove_all(backend);
  std::filesystem::create_directories(backend);
  CommandResult mounted = RunCommand({"mount", "-t", "ramfs", "ramfs", backend});
  ASSERT_EQ(mounted.exit_code, 0) << mounted.err;
  ScopeExit unmount([&] { (void)RunCommand({"umount", "-l", backend}); });
  for (const char* dir : {"xattr", "sidecar", "none"})
    std::filesystem::create_directories(backend + "/" + dir);

  // The edge pool's shape, three times, each on its own ports and hostPath on the ramfs.
  auto pool = [](const std::string& name, const std::string& ports, const std::string& posix) {
    const std::string s3_port = ports.substr(0, 4), rdma_port = ports.substr(5);
    return Replaced(EdgePool(), {{"name: edge}", "name: " + name + "}"},
                                 {"port: 7075", "port: " + s3_port},
                                 {"port: 19105", "port: " + rdma_port},
                                 {"{posix: {hostPath: /lustre/agent/vol0, pathTemplate: "
                                  "\"/lustre/agent/vol0/edge-{nodeName}\"}}",
                                  posix}});
  };
  Start("gwp-meta",
        pool("xattr", "7079 19109",
             "{posix: {hostPath: /lustre/agent/no-xattr/xattr, pathTemplate: "
             "\"/lustre/agent/no-xattr/xattr/{nodeName}\"}}") +
            "---\n" +
            pool("sidecar", "7081 19111",
                 "{posix: {hostPath: /lustre/agent/no-xattr/sidecar, pathTemplate: "
                 "\"/lustre/agent/no-xattr/sidecar/{nodeName}\", metadata: Sidecar, "
                 "sidecarPathTemplate: \"/lustre/agent/no-xattr/sidecar/meta-{nodeName}\"}}") +
            "---\n" +
            pool("none", "7083 19113",
                 "{posix: {hostPath: /lustre/agent/no-xattr/none, pathTemplate: "
                 "\"/lustre/agent/no-xattr/none/{nodeName}\", metadata: None}}"));
  if (HasFatalFailure()) return;
  ASSERT_EQ(env_->Kubectl({"label", "node", node, selector_label_ + "=in"}).exit_code, 0);

  // Xattr: refused on the node, with the reason and the ways out, in failingNodes and Degraded.
  ASSERT_TRUE(
      Eventually([&] { return FailingReason("xattr", node) == "BackendNoUserXattr"; }, 120s))
      << Diagnostics();
  const std::string why = PoolField("xattr", "{.status.failingNodes[0].message}");
  std::printf("xattr: %s\n", why.c_str());
  for (const char* want : {"does not keep user extended attributes", "user_xattr", "Sidecar"})
    EXPECT_NE(why.find(want), std::string::npos) << want << " in " << why;
  EXPECT_TRUE(Eventually(
      [&] { return PoolCondition("xattr", "Degraded", "reason") == "BackendNoUserXattr"; }, 30s))
      << Diagnostics();
  EXPECT_TRUE(ReadyEndpointNodes("xattr").empty());

  // Sidecar and None serve from the same file system; a PUT and a GET round-trip on each.
  for (const char* name : {"sidecar", "none"}) {
    ASSERT_TRUE(Eventually([&] { return ReadyEndpointNodes(name).size() == 1; }, 180s))
        << name << "\n"
        << Diagnostics();
    const std::vector<SliceEndpoint> serving = Endpoints(name);
    ASSERT_EQ(serving.size(), 1u);
    s3::S3Client client = Client(serving[0]);
    auto sent = [&](s3::S3Request r) {
      auto got = client.Send(r);
      return got.ok() ? got->status : -1;
    };
    ASSERT_EQ(sent({.method = "PUT", .path = "/meta"}), 200) << name;
    const std::string body = std::string("kept by ") + name + " on a file system without xattrs";
    ASSERT_EQ(sent({.method = "PUT",
                    .path = "/meta/object",
                    .body = body,
                    .extra_headers = {{"content-type", "text/x-rdmastack"}}}),
              200)
        << name;
    auto got = client.Send({.method = "GET", .path = "/meta/object"});
    ASSERT_TRUE(got.ok()) << name << ": " << got.status().message();
    EXPECT_EQ(got->status, 200);
    EXPECT_EQ(got->body, body) << name;
    // Only a pool that keeps metadata gives the content type back.
    if (std::string(name) == "sidecar") {
      EXPECT_EQ(got->Header("content-type"), "text/x-rdmastack");
      EXPECT_FALSE(std::filesystem::is_empty(backend + "/sidecar/meta-" + node))
          << "the metadata is in the sidecar directory";
    } else {
      EXPECT_NE(got->Header("content-type"), "text/x-rdmastack");
    }
  }
  for (const char* name : {"xattr", "sidecar", "none"})
    EXPECT_EQ(env_->Kubectl({"delete", "gwp", name, "-n", ns_->name(), "--timeout=90s"}).exit_code,
              0);
}

// The shipped compatibility data with `sha256` pinned for libcuobjserver 1.2.0.68, as the
// ConfigMap `compat`.
std::string CompatConfigMap(const std::string& sha256) {
  std::ifstream shipped(SourcePath("gateway/compatibility.yaml"));
  std::string yaml =
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: compat}\ndata:\n"
      "  compatibility.yaml: |\n";
  for (std::string line; std::getline(shipped, line);) {
    yaml += "    " + line + "\n";
    if (line == "  - version: 1.2.0.68") yaml += "        sha256: " + sha256 + "\n";
  }
  return yaml;
}

// The compatibility data pinning the library's bytes: the operator follows its ConfigMap and
// renders the sha256 into the gateway pods, and the launcher on the node hashes the libcuobjserver
// the library image's init container copied in. A sha256 the file does not have is refused
// (LibraryDigestMismatch in failingNodes, Degraded and a Warning event, naming the file and both
// digests) and nothing serves; the corrected sha256 reaches the gateway DaemonSet.
TEST_F(GatewayPoolE2eTest, ALibraryOfOtherBytesIsRefusedNamingBothDigests) {
  std::vector<std::string> nodes;
  const std::string missing = NodesWithFixture("storage-cx6-ib-ipoib-bond0-el8-inbox", 1, &nodes);
  if (!missing.empty()) GTEST_SKIP() << missing << " (scripts/test.sh makes them)";
  const std::string node = nodes[0];
  // What the library image ships (tests/harness/node-runtime/images.yaml).
  std::ifstream library(BinaryDir() +
                        "/tests/fixtures/gateway/elf/lib-v1/libcuobjserver.so.1.2.0.68");
  const std::string real = Sha256Hex(
      std::string(std::istreambuf_iterator<char>(library), std::istreambuf_iterator<char>()));
  const std::string wrong = Sha256Hex("not the vendor's release");

  Start("gwp-digest", Replaced(EdgePool(), {{"name: edge-root}", "name: pin-root}"},
                                            {"name: edge}", "name: pin}"},
                                            {"port: 7075", "port: 7081"},
                                            {"name: edge-root}}", "name: pin-root}}"},
                                            {"port: 19105", "port: 19111"},
                                            {"edge-{nodeName}", "pin-{nodeName}"}}));
  if (HasFatalFailure()) return;
  ns_->Apply(CompatConfigMap(wrong));
  // The operator again, following the ConfigMap.
  operator_.reset();
  operator_ =
      LaunchOperator("gwp-digest", {"--compatibility-configmap=" + ns_->name() + "/compat"});
  ASSERT_EQ(env_->Kubectl({"label", "node", node, selector_label_ + "=in"}).exit_code, 0);

  ASSERT_TRUE(
      Eventually([&] { return FailingReason("pin", node) == "LibraryDigestMismatch"; }, 180s))
      << PoolField("pin", "{.status}") << Diagnostics();
  const std::string message =
      PoolField("pin", "{.status.failingNodes[?(@.node==\"" + node + "\")].message}");
  std::printf("refused: %s\n", message.c_str());
  EXPECT_NE(message.find("refused (library-digest): libcuobjserver.so.1.2.0.68: sha256 is " + real +
                         ", the compatibility data expects " + wrong),
            std::string::npos)
      << message;
  EXPECT_TRUE(ReadyEndpointNodes("pin").empty());
  ASSERT_TRUE(Eventually(
      [&] { return PoolCondition("pin", "Degraded", "reason") == "LibraryDigestMismatch"; }, 30s))
      << PoolField("pin", "{.status.conditions}");
  EXPECT_NE(PoolCondition("pin", "Degraded", "message").find(node + ": "), std::string::npos);
  ASSERT_TRUE(Eventually(
      [&] {
        return Get({"get", "events", "-n", ns_->name(), "--field-selector",
                    "type=Warning,reason=LibraryDigestMismatch", "-o", "name"}) != "";
      },
      30s))
      << Get({"get", "events", "-n", ns_->name()});

  // The digest corrected in the ConfigMap reaches the DaemonSet (its rollout is the pool's
  // upgrade of the track: docs/gateway.md "Library digests").
  ns_->Apply(CompatConfigMap(real));
  ASSERT_TRUE(Eventually(
      [&] {
        return Get({"get", "ds", "pin-gateway-v1", "-n", ns_->name(), "-o",
                    "jsonpath={.spec.template.spec.containers[0].env[?(@.name==\""
                    "RDMASTACK_GW_SERVER_LIB_SHA256\")].value}"}) == real;
      },
      60s))
      << PoolField("pin", "{.status}") << Diagnostics();
}

// spec.rdma.rails on a node with two InfiniBand rails (ib0 and ib1, each its own ConnectX-7): one
// gateway per rail, each on its own ports and published in its own EndpointSlices, both serving
// S3 from the node's one backend. Rail b's link goes down (the fixture's port state, then the
// agent re-probes): the node stays Ready and serving on rail a, rail b's endpoint is withdrawn,
// and the pool says RailDown; the link comes back and so does the endpoint.
TEST_F(GatewayPoolE2eTest, ATwoRailNodeServesOnEachRailAndOnOneWhenTheOtherGoesDown) {
  std::vector<std::string> nodes;
  const std::string missing = NodesWithFixture("storage-cx7-ib-two-rails", 1, &nodes);
  if (!missing.empty()) GTEST_SKIP() << missing << " (scripts/test.sh makes it)";
  const std::string node = nodes[0];
  std::string pool = ReadSample("gatewaypool-two-rails.yaml");
  pool = Replaced(pool, {{"node-role.rdmastack.io/storage: \"\"", "SELECTOR: \"in\""},
                         {"port: 7071", "port: 7085"},
                         {"port: 19100", "port: 19115"}});
  Start("gwp-rails", pool);
  if (HasFatalFailure()) return;
  ASSERT_EQ(env_->Kubectl({"label", "node", node, selector_label_ + "=in"}).exit_code, 0);

  auto on = [&](const std::string& slice) {
    for (const SliceEndpoint& e : Endpoints("twin")) {
      if (e.slice == slice && e.node == node) return std::optional<SliceEndpoint>(e);
    }
    return std::optional<SliceEndpoint>();
  };
  auto ready = [&](const std::string& slice) {
    auto e = on(slice);
    return e && e->ready;
  };
  ASSERT_TRUE(Eventually(
      [&] { return ready("twin-gateway-v1-rail-a-0") && ready("twin-gateway-v1-rail-b-0"); }, 180s))
      << Diagnostics();
  const SliceEndpoint a = *on("twin-gateway-v1-rail-a-0");
  const SliceEndpoint b = *on("twin-gateway-v1-rail-b-0");
  EXPECT_EQ(a.port, 7085);
  EXPECT_EQ(b.port, 7185);
  EXPECT_EQ(a.ip, nodes_.at(node).address);
  EXPECT_EQ(PoolCondition("twin", "Ready"), "True") << Diagnostics();
  EXPECT_EQ(PoolField("twin", "{.status.endpoints[0].rails}"), R"(["rail-a","rail-b"])");
  // Where the rails serve, from the prefixes the node's agent reported (ib0 10.10.0.11/16, ib1
  // 10.11.0.11/16): what clients pick their NICs by.
  EXPECT_EQ(PoolField("twin", "{.status.networks[*].rail}"), "rail-a rail-b");
  EXPECT_EQ(PoolField("twin", "{.status.networks[*].cidr}"), "10.10.0.0/16 10.11.0.0/16");
  // Each rail's gateway runs with its own rail's RDMA address (the environment the launcher
  // exec'd the gateway with, read from the processes on the node).
  std::set<std::string> rdma_ips;
  for (pid_t pid : ProcessesInNetns(nodes_.at(node).netns)) {
    const std::vector<std::string> env = ProcessEnv(pid);
    const bool rail = std::any_of(env.begin(), env.end(), [](const std::string& v) {
      return v.starts_with("RDMASTACK_GW_RAIL=");
    });
    for (const std::string& v : env) {
      if (rail && v.starts_with("VGW_RDMA_IP=")) rdma_ips.insert(v.substr(12));
    }
  }
  EXPECT_EQ(rdma_ips, (std::set<std::string>{"10.10.0.11", "10.11.0.11"}));

  // Written through rail a, read through rail b: one backend behind both gateways.
  const s3::Credentials twin{"twin-root", "change-me-please"};  // the sample's Secret
  const std::string bucket = "/" + ns_->name() + "-rails", body = RandomBytes(32 * 1024);
  auto made = Client(a, twin).Send({.method = "PUT", .path = bucket});
  ASSERT_TRUE(made.ok() && made->status == 200) << (made.ok() ? made->body : "");
  auto put = Client(a, twin).Send({.method = "PUT", .path = bucket + "/object", .body = body});
  ASSERT_TRUE(put.ok() && put->status == 200);
  auto got = Client(b, twin).Send({.method = "GET", .path = bucket + "/object"});
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->status, 200);
  EXPECT_TRUE(got->body == body) << "bytes differ through rail b";

  // Rail b's link goes down on the node.
  const std::string port = nodes_.at(node).host_root + "/sys/class/infiniband/mlx5_1/ports/1/";
  auto write_port = [&](const char* state, const char* phys) {
    std::ofstream(port + "state", std::ios::trunc) << state << "\n";
    std::ofstream(port + "phys_state", std::ios::trunc) << phys << "\n";
  };
  auto set_port = [&](const char* state, const char* phys) {
    write_port(state, phys);
    HupAgent(node);
  };
  // Other tests use the node as the fixture has it (an agent that starts later reads it anew).
  ScopeExit restore([&] { write_port("4: ACTIVE", "5: LinkUp"); });
  set_port("1: DOWN", "3: Disabled");
  ASSERT_TRUE(
      Eventually([&] { return PoolCondition("twin", "Degraded", "reason") == "RailDown"; }, 60s))
      << Diagnostics();
  std::printf("rail down: %s\n", PoolCondition("twin", "Degraded", "message").c_str());
  EXPECT_NE(PoolField("twin", "{.status.degradedNodes[0].message}")
                .find("rail rail-b (10.11.0.11): mlx5_1/1 is DOWN (Disabled); serving on rail-a"),
            std::string::npos)
      << Diagnostics();
  ASSERT_TRUE(Eventually(
      [&] { return on("twin-gateway-v1-rail-b-0") && !ready("twin-gateway-v1-rail-b-0"); }, 30s))
      << Diagnostics();
  EXPECT_TRUE(ready("twin-gateway-v1-rail-a-0"));
  EXPECT_EQ(PoolCondition("twin", "Ready"), "True");
  EXPECT_EQ(PoolField("twin", "{.status.failingNodes}"), "");
  auto listed = Client(a, twin).Send({.method = "GET", .path = "/"});
  EXPECT_TRUE(listed.ok() && listed->status == 200) << "rail a serves on";
  EXPECT_EQ(PoolField("twin", "{.status.endpoints[0].rails}"), R"(["rail-a"])");

  // The link is back: so is rail b's endpoint, and the pool is as expected.
  set_port("4: ACTIVE", "5: LinkUp");
  ASSERT_TRUE(Eventually([&] { return ready("twin-gateway-v1-rail-b-0"); }, 60s)) << Diagnostics();
  EXPECT_TRUE(Eventually([&] { return PoolCondition("twin", "Degraded") == "False"; }, 30s))
      << Diagnostics();
  EXPECT_EQ(PoolField("twin", "{.status.degradedNodes}"), "");
  ASSERT_EQ(env_->Kubectl({"delete", "gwp", "twin", "-n", ns_->name(), "--timeout=90s"}).exit_code,
            0);
}

}  // namespace
}  // namespace rdmastack::testing
