// Multi-rail pools (spec.rdma.rails): one gateway container per rail on its own ports, each rail
// verified on its own address, a rail that is down withdrawn from its own EndpointSlices and shown
// as RailDown while the node serves on the others.
#include "controllers/gatewaypool/rails.h"

#include <gtest/gtest.h>

#include "controllers/common/conditions.h"
#include "controllers/gatewaypool/endpoints.h"
#include "controllers/gatewaypool/gateway_daemonset.h"
#include "controllers/gatewaypool/node_verdict.h"
#include "controllers/gatewaypool/pool_host_policy.h"
#include "controllers/gatewaypool/pool_status.h"
#include "controllers/gatewaypool/tests/test_pools.h"
#include "crds/schema/testing/status_expectations.h"
#include "crds/types/validate.h"

namespace rdmastack::gatewaypool {
namespace {

using testing::SamplePool;
using testing::ShippedMatrix;

crd::GatewayPool TwoRails() {
  return SamplePool("gatewaypool-two-rails.yaml");
}

Track TrackOf(const crd::GatewayPool& pool) {
  return *DecideTrack(pool.spec, ShippedMatrix()).track;
}

std::string EnvOf(const k8s::JsonObject& container, const std::string& name) {
  for (const auto& e : container.GetArray({"env"})) {
    if (e.GetString({"name"}) == name) return e.GetString({"value"}).value_or("<from>");
  }
  return "<unset>";
}

TEST(RailsTest, EachRailHasItsOwnPorts) {
  const crd::GatewayPool pool = TwoRails();
  const std::vector<Rail> rails = RailsOf(pool.spec, TrackOf(pool));
  ASSERT_EQ(rails.size(), 2u);
  EXPECT_EQ(rails[0].name, "rail-a");
  EXPECT_EQ(rails[0].selector, "ib0");
  EXPECT_EQ(rails[0].s3_port, 7071);
  EXPECT_EQ(rails[0].rdma_port, 19100);
  EXPECT_EQ(rails[1].selector, "10.11.0.0/16");
  EXPECT_EQ(rails[1].s3_port, 7171);
  EXPECT_EQ(rails[1].rdma_port, 19200);
  // The single-rail pool: one unnamed rail on the track's ports.
  const crd::GatewayPool seed = SamplePool();
  const std::vector<Rail> one = RailsOf(seed.spec, TrackOf(seed));
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].name, "");
  EXPECT_EQ(one[0].selector, "bond0");
  EXPECT_EQ(GatewayContainerName(one[0]), "gateway");
}

TEST(RailsTest, OneGatewayContainerPerRail) {
  const crd::GatewayPool pool = TwoRails();
  auto ds = RenderGatewayDaemonSet(pool, TrackOf(pool), {});
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  const auto containers = ds->GetArray({"spec", "template", "spec", "containers"});
  ASSERT_EQ(containers.size(), 2u);
  const k8s::JsonObject& b = containers[1];
  EXPECT_EQ(containers[0].GetString({"name"}), "gateway-rail-a");
  EXPECT_EQ(b.GetString({"name"}), "gateway-rail-b");
  EXPECT_EQ(EnvOf(b, "RDMASTACK_GW_RDMA_SELECT"), "10.11.0.0/16");
  EXPECT_EQ(EnvOf(b, "RDMASTACK_GW_S3_PORT"), "7171");
  EXPECT_EQ(EnvOf(b, "RDMASTACK_GW_RDMA_PORT"), "19200");
  EXPECT_EQ(EnvOf(b, "RDMASTACK_GW_RAIL"), "rail-b");
  EXPECT_EQ(EnvOf(b, "RDMASTACK_GW_CONFIG_DIR"), "/run/rdmastack-gateway/rail-b");
  EXPECT_EQ(EnvOf(containers[0], "RDMASTACK_GW_S3_PORT"), "7071");
  EXPECT_EQ(b.GetString({"ports", "0", "name"}), "s3-r1");
  EXPECT_EQ(b.GetInt({"ports", "0", "containerPort"}), 7171);
  EXPECT_EQ(b.GetString({"startupProbe", "httpGet", "port"}), "s3-r1");
  EXPECT_EQ(b.GetString({"livenessProbe", "httpGet", "port"}), "s3-r1");
  EXPECT_EQ(b.GetString({"readinessProbe", "exec", "command", "3"}), "http://127.0.0.1:7171");
  // Each rail's gateway pins its own buffer pool.
  EXPECT_EQ(b.GetString({"resources", "limits", "memory"}),
            containers[0].GetString({"resources", "limits", "memory"}));
  // The single-rail pool has no rail variable.
  auto seed = RenderGatewayDaemonSet(SamplePool(), TrackOf(SamplePool()), {});
  ASSERT_TRUE(seed.ok());
  EXPECT_EQ(
      EnvOf(seed->GetArray({"spec", "template", "spec", "containers"})[0], "RDMASTACK_GW_RAIL"),
      "<unset>");
}

// ib0 on mlx5_0/1 and ib1 on mlx5_1/1, each port as `states` says.
crd::RdmaNodeStatus TwoRailNode(const std::string& a_state, const std::string& b_state) {
  crd::RdmaNodeStatus s = testing::AgentStatus(true, {"ib0 10.10.0.11/16", "ib1 10.11.0.11/16"});
  s.netdevs[1].rdma_device = "mlx5_1";
  for (int i = 0; i < 2; ++i) {
    s.netdevs[i].rdma_port = 1;
    crd::RdmaDeviceFacts d;
    d.name = "mlx5_" + std::to_string(i);
    crd::RdmaPortFacts p;
    p.number = 1;
    p.state = i == 0 ? a_state : b_state;
    p.physical_state = p.state == "ACTIVE" ? "LinkUp" : "Disabled";
    d.ports.push_back(p);
    s.devices.push_back(d);
  }
  return s;
}

TEST(RailsTest, EachRailIsVerifiedOnItsOwnAddress) {
  const crd::GatewayPool pool = TwoRails();
  const crd::RdmaNodeStatus up = TwoRailNode("ACTIVE", "ACTIVE");
  NodeVerdict v = VerifyNode(pool.spec, {"n1", {}, &up});
  ASSERT_TRUE(v.verified) << v.message;
  ASSERT_EQ(v.rails.size(), 2u);
  EXPECT_EQ(v.rails[0].address, "10.10.0.11");
  EXPECT_EQ(v.rails[1].address, "10.11.0.11");
  EXPECT_FALSE(v.RailsDown());
  EXPECT_TRUE(RailServes(v, "rail-b"));

  // rail-b's port goes down: still verified, that rail marked down with its port.
  const crd::RdmaNodeStatus down = TwoRailNode("ACTIVE", "DOWN");
  v = VerifyNode(pool.spec, {"n1", {}, &down});
  ASSERT_TRUE(v.verified);
  EXPECT_TRUE(v.RailsDown());
  EXPECT_TRUE(RailServes(v, "rail-a"));
  EXPECT_FALSE(RailServes(v, "rail-b"));
  EXPECT_EQ(v.rails[1].down, "mlx5_1/1 is DOWN (Disabled)");

  // A rail that picks nothing: the node fails, and the message names the rail.
  crd::RdmaNodeStatus missing = up;
  missing.netdevs.pop_back();
  v = VerifyNode(pool.spec, {"n1", {}, &missing});
  EXPECT_FALSE(v.verified);
  EXPECT_EQ(v.reason, "NoAddressInCidr");
  EXPECT_EQ(v.message.rfind("rail rail-b: ", 0), 0u) << v.message;
}

controllers::OwnedPod RailPod(const std::string& node) {
  controllers::OwnedPod p;
  p.name = "twin-gateway-v1-" + node;
  p.uid = "uid-" + node;
  p.node = node;
  p.track = "v1";
  p.ip = "198.18.1.1" + std::to_string(node.size());
  p.ready = true;
  return p;
}

TEST(RailsTest, EachRailPublishesItsOwnSlicesAndADownRailIsNotReady) {
  const crd::GatewayPool pool = TwoRails();
  const Track track = TrackOf(pool);
  const std::vector<Rail> rails = RailsOf(pool.spec, track);
  const SliceRail b{rails[1], [](const std::string& node) { return node != "n2"; }};
  const auto slices =
      RenderEndpointSlices(pool, track, {RailPod("n1"), RailPod("n2")}, {}, nullptr, &b);
  ASSERT_EQ(slices.size(), 1u);
  const k8s::JsonObject& s = slices[0];
  EXPECT_EQ(s.Name(), "twin-gateway-v1-rail-b-0");
  EXPECT_EQ(s.Label(kRailLabel), "rail-b");
  EXPECT_EQ(s.GetInt({"ports", "0", "port"}), 7171);
  EXPECT_EQ(s.GetInt({"ports", "1", "port"}), 19200);
  EXPECT_EQ(ReadyNodes(s), (std::set<std::string>{"n1"}));
  EXPECT_EQ(s.GetBool({"endpoints", "1", "conditions", "serving"}), false);
  EXPECT_EQ(ReadSliceAssignment({&s}), (SliceAssignment{{"n1", "n2"}}));
}

TEST(RailsTest, ARailDownDegradesTheNodeWithoutFailingIt) {
  crd::GatewayPool pool = TwoRails();
  PoolStatusInputs in;
  in.pool = &pool;
  in.decision = DecideTrack(pool.spec, ShippedMatrix());
  in.now = Clock::WallTime(std::chrono::seconds(1'800'000'000));
  const crd::RdmaNodeStatus up = TwoRailNode("ACTIVE", "ACTIVE");
  const crd::RdmaNodeStatus down = TwoRailNode("ACTIVE", "DOWN");
  in.selected = {{"n1", VerifyNode(pool.spec, {"n1", {}, &up})},
                 {"n2", VerifyNode(pool.spec, {"n2", {}, &down})}};
  in.pods = {RailPod("n1"), RailPod("n2")};
  const crd::GatewayPoolStatus s = ComputePoolStatus(in);
  crd::testing::ExpectValidStatus(s);
  const crd::Condition* ready = controllers::FindCondition(s.conditions, "Ready");
  const crd::Condition* degraded = controllers::FindCondition(s.conditions, "Degraded");
  ASSERT_NE(ready, nullptr);
  ASSERT_NE(degraded, nullptr);
  EXPECT_EQ(ready->status, crd::ConditionStatus::kTrue) << ready->message;
  EXPECT_EQ(degraded->reason, "RailDown");
  EXPECT_EQ(degraded->message,
            "n2: rail rail-b (10.11.0.11): mlx5_1/1 is DOWN (Disabled); serving on rail-a; 1 node "
            "serves on fewer rails (status.degradedNodes)");
  ASSERT_EQ(s.degraded_nodes.size(), 1u);
  EXPECT_EQ(s.degraded_nodes[0].node, "n2");
  EXPECT_TRUE(s.failing_nodes.empty());
  EXPECT_EQ(s.node_counts->ready, 2);
  ASSERT_EQ(s.endpoints.size(), 2u);
  EXPECT_EQ(s.endpoints[0].rails, (std::vector<std::string>{"rail-a", "rail-b"}));
  EXPECT_EQ(s.endpoints[1].rails, (std::vector<std::string>{"rail-a"}));
  // Where the rails serve, a rail down included (its network is still the rail's).
  EXPECT_EQ(s.networks, (std::vector<crd::PoolNetwork>{{"rail-a", "10.10.0.0/16"},
                                                       {"rail-b", "10.11.0.0/16"}}));
}

// status.networks: each verified node's address's network, once, in rail order; a node that did
// not verify adds none, and a pool without rails names no rail.
TEST(RailsTest, ThePoolPublishesTheNetworksItsRailsServeOn) {
  crd::GatewayPool pool = TwoRails();
  PoolStatusInputs in;
  in.pool = &pool;
  in.decision = DecideTrack(pool.spec, ShippedMatrix());
  crd::RdmaNodeStatus n1 = TwoRailNode("ACTIVE", "ACTIVE");
  crd::RdmaNodeStatus n2 = n1, n3 = n1;
  n2.netdevs[0].ipv4 = {"10.10.7.12/24"};
  n3.netdevs[1].ipv4 = {"10.12.0.13/16"};  // outside rail-b's cidr: n3 fails
  in.selected = {{"n1", VerifyNode(pool.spec, {"n1", {}, &n1})},
                 {"n2", VerifyNode(pool.spec, {"n2", {}, &n2})},
                 {"n3", VerifyNode(pool.spec, {"n3", {}, &n3})}};
  ASSERT_FALSE(in.selected[2].verdict.verified);
  crd::GatewayPoolStatus s = ComputePoolStatus(in);
  crd::testing::ExpectValidStatus(s);
  EXPECT_EQ(s.networks, (std::vector<crd::PoolNetwork>{{"rail-a", "10.10.0.0/16"},
                                                       {"rail-a", "10.10.7.0/24"},
                                                       {"rail-b", "10.11.0.0/16"}}));

  pool.spec.rdma.rails.clear();
  pool.spec.rdma.interface = "ib1";
  in.selected = {{"n1", VerifyNode(pool.spec, {"n1", {}, &n1})}};
  s = ComputePoolStatus(in);
  EXPECT_EQ(s.networks, (std::vector<crd::PoolNetwork>{{std::nullopt, "10.11.0.0/16"}}));
}

// What the schema cannot see (ports follow the defaulted ones) is refused when rendering: the
// pool's pass then refuses the spec (InvalidSpec) and changes nothing that serves.
TEST(RailsTest, RenderingRefusesRailsThatCannotAllBind) {
  crd::GatewayPool overlap = TwoRails();
  overlap.spec.rdma.port = 7171;  // rail b's S3 port
  auto ds = RenderGatewayDaemonSet(overlap, TrackOf(overlap), {});
  ASSERT_FALSE(ds.ok());
  EXPECT_EQ(ds.status().message(),
            "rail rail-b's S3 port 7171 is also rail rail-a's RDMA port 7171: move s3.port or "
            "rdma.port so they do not differ by a multiple of 100");
  crd::GatewayPool high = TwoRails();
  high.spec.s3.port = 65500;
  ds = RenderGatewayDaemonSet(high, TrackOf(high), {});
  ASSERT_FALSE(ds.ok());
  EXPECT_NE(ds.status().message().find("rail rail-b's S3 port 65600 is outside 1..65535"),
            std::string::npos)
      << ds.status().message();
  crd::GatewayPool twice = TwoRails();
  twice.spec.rdma.rails[1].cidr.reset();
  twice.spec.rdma.rails[1].interface = "ib0";
  ds = RenderGatewayDaemonSet(twice, TrackOf(twice), {});
  ASSERT_FALSE(ds.ok());
  EXPECT_NE(ds.status().message().find("rails rail-a and rail-b both pick ib0"), std::string::npos)
      << ds.status().message();
}

// A rail name past the schema's pattern (an object stored before it, or ratcheted) is refused
// when rendering, in any form, before it reaches a container, slice or label name.
TEST(RailsTest, RenderingRefusesANameOutsideThePattern) {
  for (const std::string& name :
       {std::string("Rail_A"), std::string(16, 'a'), std::string("../x"), std::string("a\nb"),
        std::string("-a"), std::string(""), std::string("rail.b"), std::string(300, 'x')}) {
    crd::GatewayPool pool = TwoRails();
    pool.spec.rdma.rails[1].name = name;
    auto ds = RenderGatewayDaemonSet(pool, TrackOf(pool), {});
    ASSERT_FALSE(ds.ok()) << name;
    EXPECT_EQ(ds.status().message().rfind("rail name \"", 0), 0u) << ds.status().message();
    EXPECT_LE(ds.status().message().size(), 140u);
  }
  EXPECT_TRUE(RenderGatewayDaemonSet(TwoRails(), TrackOf(TwoRails()), {}).ok());
}

// The admin's host port range holds for every rail: rail b's ports are the pool's plus 100.
TEST(RailsTest, EveryRailsPortsAreHeldToTheHostPortRange) {
  const crd::GatewayPool pool = TwoRails();
  controllers::TenancyPolicy policy;
  policy.host_ports = {7000, 19150};
  const std::optional<Track> track = TrackOf(pool);
  auto refused = CheckPoolHostPolicy(policy, pool.spec, track);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->reason, "HostPortNotAllowed");
  EXPECT_EQ(refused->message.rfind("rdma.port + 100 (rail rail-b) 19200 is outside", 0), 0u)
      << refused->message;
  policy.host_ports = {7000, 19200};
  EXPECT_FALSE(CheckPoolHostPolicy(policy, pool.spec, track).has_value());
}

std::string Problems(const crd::GatewayPool& pool) {
  return crd::FormatProblems(crd::Validate(pool));
}

TEST(RailsTest, ValidationRefusesWhatTheSchemaCannot) {
  EXPECT_EQ(Problems(TwoRails()), "");
  crd::GatewayPool both = TwoRails();
  both.spec.rdma.interface = "bond0";
  EXPECT_NE(Problems(both).find("set rails or interface/cidr, not both"), std::string::npos);
  crd::GatewayPool same_name = TwoRails();
  same_name.spec.rdma.rails[1].name = "rail-a";
  EXPECT_NE(Problems(same_name).find("\"rail-a\" names two rails"), std::string::npos);
  crd::GatewayPool same_address = TwoRails();
  same_address.spec.rdma.rails[1].cidr.reset();
  same_address.spec.rdma.rails[1].interface = "ib0";
  EXPECT_NE(Problems(same_address).find("another rail picks ib0 too"), std::string::npos);
  crd::GatewayPool bad_name = TwoRails();
  bad_name.spec.rdma.rails[0].name = "Rail_A";
  EXPECT_NE(Problems(bad_name).find("spec.rdma.rails.0.name"), std::string::npos)
      << Problems(bad_name);
  crd::GatewayPool high = TwoRails();
  high.spec.s3.port = 65500;
  EXPECT_NE(Problems(high).find("beyond 65535"), std::string::npos) << Problems(high);
  // rail 1's S3 port would be rail 0's RDMA port.
  crd::GatewayPool overlap = TwoRails();
  overlap.spec.rdma.port = 7171;
  EXPECT_NE(Problems(overlap).find("differ by a multiple of 100"), std::string::npos)
      << Problems(overlap);

  // A SideBySide upgrade whose new ports land on the old track's second rail.
  crd::GatewayPool v2 = TwoRails();
  v2.spec.server_library.version = "2.0.0.109";
  v2.spec.s3.port = 7171;
  v2.spec.rdma.port = 19101;
  EXPECT_NE(
      crd::FormatProblems(crd::ValidateUpdate(TwoRails(), v2)).find("both would use port 7171"),
      std::string::npos);
  v2.spec.s3.port = 7072;
  EXPECT_EQ(crd::FormatProblems(crd::ValidateUpdate(TwoRails(), v2)).find("both would use port"),
            std::string::npos);
}

}  // namespace
}  // namespace rdmastack::gatewaypool
