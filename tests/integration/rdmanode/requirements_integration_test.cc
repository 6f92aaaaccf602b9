// Agent requirements follow the GatewayPools and ClientProfiles that select a Node, are published
// only when they change, and are forgotten when the Node goes.
#include <gtest/gtest.h>

#include <thread>

#include "tests/integration/rdmanode/node_controllers_run.h"

namespace rdmastack::rdmanode::integration {
namespace {

using namespace std::chrono_literals;
using ::rdmastack::testing::Eventually;

std::string ProfileYaml(const std::string& label, const std::string& size) {
  return R"(apiVersion: rdmastack.io/v1alpha1
kind: ClientProfile
metadata: {name: gd}
spec:
  nodeSelector: {)" +
         label + R"(: "yes"}
  gatewayPoolRef: {name: kv}
  transport: GPUDirect
  memoryRegistration: PeerMem
  maxTransferSize: )" +
         size + R"(
  clientLibrary: {version: 1.2.0.68, image: registry.local/rdmastack/libcuobjclient:1.2.0.68}
)";
}

TEST(RequirementsIntegrationTest, FollowPoolsAndProfilesAndAreForgottenWithTheNode) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  RequireCrds(*env);
  const std::string ns = ::rdmastack::testing::UniqueName("reqs");
  ASSERT_EQ(env->Kubectl({"create", "namespace", ns}).exit_code, 0);
  const std::string node = ::rdmastack::testing::UniqueName("reqs-node");
  const std::string label = "test.rdmastack.io/" + ns;
  ASSERT_EQ(env->Kubectl({"apply", "-f", "-"}, "apiVersion: v1\nkind: Node\nmetadata:\n  name: " +
                                                   node + "\n  labels: {" + label + ": \"yes\"}\n")
                .exit_code,
            0);
  NodeControllersRun run(*env, "reqs", 60s, {});
  auto published = [&] { return run.requirements().Get(node); };
  // Nothing selects the node yet: nothing is published for it.
  std::this_thread::sleep_for(2s);
  EXPECT_FALSE(published());

  ASSERT_EQ(env->Kubectl({"apply", "-n", ns, "-f", "-"}, PoolYaml("kv", label, "yes")).exit_code,
            0);
  ASSERT_EQ(env->Kubectl({"apply", "-n", ns, "-f", "-"}, ProfileYaml(label, "192Mi")).exit_code, 0);
  ASSERT_TRUE(Eventually(
      [&] {
        auto r = published();
        return r && r->gateway() && r->clients_size() == 1 &&
               r->clients(0).max_transfer_bytes() == 192LL << 20;
      },
      30s));
  EXPECT_EQ(published()->clients(0).profile(), ns + "/gd");
  EXPECT_EQ(published()->clients(0).transport(), "GPUDirect");
  EXPECT_EQ(published()->clients(0).memory_registration(), "PeerMem");

  // A change that does not change what the node must meet publishes nothing.
  const int before = run.requirements().publishes();
  ASSERT_EQ(env->Kubectl({"label", "node", node, "unrelated=1"}).exit_code, 0);
  ASSERT_EQ(env->Kubectl({"annotate", "gwp", "kv", "-n", ns, "note=x"}).exit_code, 0);
  std::this_thread::sleep_for(3s);
  EXPECT_EQ(run.requirements().publishes(), before);

  // The profile asks for more: re-published.
  ASSERT_EQ(env->Kubectl({"apply", "-n", ns, "-f", "-"}, ProfileYaml(label, "224Mi")).exit_code, 0);
  EXPECT_TRUE(Eventually(
      [&] {
        auto r = published();
        return r && r->clients_size() == 1 && r->clients(0).max_transfer_bytes() == 224LL << 20;
      },
      30s));
  // The node leaves the selectors: empty requirements are published.
  ASSERT_EQ(env->Kubectl({"label", "node", node, label + "-"}).exit_code, 0);
  EXPECT_TRUE(Eventually(
      [&] {
        auto r = published();
        return r && !r->gateway() && r->clients_size() == 0;
      },
      30s));
  // The Node goes: its requirements are forgotten.
  ASSERT_EQ(env->Kubectl({"delete", "node", node}).exit_code, 0);
  EXPECT_TRUE(Eventually([&] { return !published().has_value(); }, 30s));
  (void)env->Kubectl({"delete", "namespace", ns, "--wait=false"});
}

}  // namespace
}  // namespace rdmastack::rdmanode::integration
