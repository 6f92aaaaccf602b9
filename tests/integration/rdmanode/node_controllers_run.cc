#include "tests/integration/rdmanode/node_controllers_run.h"

#include <gtest/gtest.h>

#include "operator/k8s/config.h"

namespace rdmastack::rdmanode::integration {

std::string PoolYaml(const std::string& name, const std::string& label, const std::string& value) {
  return "apiVersion: rdmastack.io/v1alpha1\nkind: GatewayPool\nmetadata: {name: " + name +
         "}\nspec:\n  nodeSelector: {" + label + ": \"" + value + "\"}\n" +
         R"(  gateway: {image: registry.local/rdmastack/vgwrdma:1.8.0-cuobj1, version: 1.8.0}
  serverLibrary: {version: 1.2.0.68, image: registry.local/rdmastack/libcuobjserver:1.2.0.68}
  s3: {credentialsSecret: {name: kv-root}}
  rdma: {interface: bond0}
  backend: {posix: {hostPath: /srv/kv, pathTemplate: "/srv/kv/{nodeName}"}}
)";
}

void RequireCrds(const ::rdmastack::testing::ClusterEnv& env) {
  const auto r = ::rdmastack::testing::InstallCrds(env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

NodeControllersRun::NodeControllersRun(const ::rdmastack::testing::ClusterEnv& env,
                                       const std::string& name, Clock::Duration stale_ttl,
                                       NodeControllerOptions options, bool gateway_pools)
    : user_agent_("rdmastack-operator/test (" + ::rdmastack::testing::UniqueName(name) + ")") {
  auto config = k8s::LoadKubeconfig(env.kubeconfig);
  EXPECT_TRUE(config.ok()) << config.status().ToString();
  if (!config.ok()) return;
  config->user_agent = user_agent_;
  auto client = k8s::NewRestClient(*config);
  EXPECT_TRUE(client.ok()) << client.status().ToString();
  if (!client.ok()) return;
  client_ = std::move(*client);
  agents_ = std::make_unique<AgentStateStore>(RealClock::Instance(), stale_ttl);
  runtime::ManagerOptions mo;
  mo.health_probe_bind_address = "0";
  mo.metrics.bind_address = "0";
  mo.graceful_shutdown_timeout = std::chrono::seconds(5);
  manager_ = std::make_unique<runtime::Manager>(*client_, RealClock::Instance(), mo);
  controllers_ = std::make_unique<NodeControllers>(*manager_, RealClock::Instance(), *agents_,
                                                   requirements_, std::move(options));
  if (gateway_pools) {
    auto pools = gatewaypool::GatewayPoolControllers::Create(*manager_, RealClock::Instance(),
                                                             controllers_->node_cache(), {});
    EXPECT_TRUE(pools.ok()) << pools.status().ToString();
    if (!pools.ok()) return;
    pools_ = std::move(*pools);
  }
  thread_ = std::thread([this] {
    const Status s = manager_->Run();
    EXPECT_TRUE(s.ok()) << s.ToString();
  });
  EXPECT_TRUE(::rdmastack::testing::Eventually([this] { return manager_->Ready(); },
                                               std::chrono::seconds(60)))
      << "caches did not sync";
}

NodeControllersRun::~NodeControllersRun() {
  if (manager_) manager_->RequestStop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace rdmastack::rdmanode::integration
