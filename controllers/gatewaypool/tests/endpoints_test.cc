#include "controllers/gatewaypool/endpoints.h"

#include <gtest/gtest.h>

#include "controllers/gatewaypool/tests/test_pools.h"

namespace rdmastack::gatewaypool {
namespace {

using testing::SamplePool;
using testing::ShippedMatrix;

controllers::OwnedPod SlicePod(const std::string& node, bool ready,
                               const std::string& track = "v1") {
  controllers::OwnedPod p;
  p.name = "kvcache-gateway-" + track + "-" + node;
  p.uid = "uid-" + node;
  p.node = node;
  p.track = track;
  p.ip = "198.18.1." + std::to_string(10 + node.size());
  p.ready = ready;
  return p;
}

Track V1() {
  return *DecideTrack(SamplePool().spec, ShippedMatrix()).track;
}

TEST(EndpointsTest, OneEndpointPerNodeWithItsConditions) {
  std::vector<controllers::OwnedPod> pods = {SlicePod("b", true), SlicePod("a", false),
                                             SlicePod("c", true, "v2")};
  controllers::OwnedPod leaving = SlicePod("d", true);
  leaving.terminating = true;
  pods.push_back(leaving);
  controllers::OwnedPod pending = SlicePod("e", false);
  pending.ip.clear();
  pods.push_back(pending);
  const auto slices = RenderEndpointSlices(SamplePool(), V1(), pods);
  ASSERT_EQ(slices.size(), 1u);
  const k8s::JsonObject& s = slices[0];
  EXPECT_EQ(s.Name(), "kvcache-gateway-v1-0");
  EXPECT_EQ(s.Label("kubernetes.io/service-name"), "kvcache-gateway");
  EXPECT_EQ(s.Label("endpointslice.kubernetes.io/managed-by"), "rdmastack-operator.rdmastack.io");
  EXPECT_EQ(s.Label(kLibraryVersionLabel), "1.2.0.68");
  EXPECT_EQ(s.GetInt({"ports", "0", "port"}), 7071);
  EXPECT_EQ(s.GetString({"ports", "1", "name"}), "rdma");
  EXPECT_EQ(s.GetInt({"ports", "1", "port"}), 19100);
  const auto endpoints = s.GetArray({"endpoints"});
  ASSERT_EQ(endpoints.size(), 3u);  // a, b, d: c is another track, e has no address yet
  EXPECT_EQ(endpoints[0].GetString({"nodeName"}), "a");
  EXPECT_EQ(endpoints[0].GetBool({"conditions", "ready"}), false);
  EXPECT_EQ(endpoints[1].GetBool({"conditions", "ready"}), true);
  EXPECT_EQ(endpoints[2].GetString({"nodeName"}), "d");
  EXPECT_EQ(endpoints[2].GetBool({"conditions", "ready"}), false);
  EXPECT_EQ(endpoints[2].GetBool({"conditions", "serving"}), true);
  EXPECT_EQ(endpoints[2].GetBool({"conditions", "terminating"}), true);
}

TEST(EndpointsTest, UpgradeRolesLeaveOutOrDrainNodes) {
  const std::vector<controllers::OwnedPod> pods = {SlicePod("a", true), SlicePod("b", true),
                                                   SlicePod("c", true)};
  auto role = [](const std::string& node) {
    if (node == "a") return EndpointRole::kDraining;
    if (node == "b") return EndpointRole::kAbsent;
    return EndpointRole::kActive;
  };
  const auto slices = RenderEndpointSlices(SamplePool(), V1(), pods, {}, role);
  ASSERT_EQ(slices.size(), 1u);
  const auto endpoints = slices[0].GetArray({"endpoints"});
  ASSERT_EQ(endpoints.size(), 2u);  // b is absent
  EXPECT_EQ(endpoints[0].GetString({"nodeName"}), "a");
  EXPECT_EQ(endpoints[0].GetBool({"conditions", "ready"}), false);
  EXPECT_EQ(endpoints[0].GetBool({"conditions", "serving"}), true);
  EXPECT_EQ(endpoints[0].GetBool({"conditions", "terminating"}), true);
  EXPECT_EQ(endpoints[1].GetString({"nodeName"}), "c");
  EXPECT_EQ(endpoints[1].GetBool({"conditions", "ready"}), true);
  EXPECT_EQ(ReadyNodes(slices[0]), std::set<std::string>{"c"});
}

TEST(EndpointsTest, ReplacementPodKeepsTheLiveOne) {
  controllers::OwnedPod old = SlicePod("a", true);
  old.terminating = true;
  controllers::OwnedPod fresh = SlicePod("a", false);
  fresh.uid = "uid-new";
  const auto slices = RenderEndpointSlices(SamplePool(), V1(), {old, fresh});
  const auto endpoints = slices[0].GetArray({"endpoints"});
  ASSERT_EQ(endpoints.size(), 1u);
  EXPECT_EQ(endpoints[0].GetString({"targetRef", "uid"}), "uid-new");
}

TEST(EndpointsTest, AtMostAHundredPerSlice) {
  std::vector<controllers::OwnedPod> pods;
  for (int i = 0; i < 250; ++i) pods.push_back(SlicePod("n" + std::to_string(1000 + i), true));
  const auto slices = RenderEndpointSlices(SamplePool(), V1(), pods);
  ASSERT_EQ(slices.size(), 3u);
  EXPECT_EQ(slices[0].GetArray({"endpoints"}).size(), 100u);
  EXPECT_EQ(slices[2].GetArray({"endpoints"}).size(), 50u);
  EXPECT_EQ(slices[2].Name(), "kvcache-gateway-v1-2");
}

TEST(EndpointsTest, NodesStayInTheirSliceAndNewOnesFillGaps) {
  std::vector<controllers::OwnedPod> pods;
  for (int i = 0; i < 150; ++i) pods.push_back(SlicePod("n" + std::to_string(1000 + i), true));
  const auto first = RenderEndpointSlices(SamplePool(), V1(), pods);
  ASSERT_EQ(first.size(), 2u);
  std::vector<const k8s::JsonObject*> ptrs;
  for (const auto& s : first) ptrs.push_back(&s);
  const SliceAssignment assigned = ReadSliceAssignment(ptrs);
  ASSERT_EQ(assigned.size(), 2u);
  EXPECT_EQ(assigned[0].size(), 100u);
  // A node sorting first joins late, one in slice 0 goes: only slice 0 changes, and the newcomer
  // takes the free place there.
  pods.erase(pods.begin() + 10);
  pods.push_back(SlicePod("a0", true));
  const auto second = RenderEndpointSlices(SamplePool(), V1(), pods, assigned);
  ASSERT_EQ(second.size(), 2u);
  EXPECT_NE(second[0].Annotation("rdmastack.io/applied-hash"),
            first[0].Annotation("rdmastack.io/applied-hash"));
  EXPECT_EQ(second[1].Annotation("rdmastack.io/applied-hash"),
            first[1].Annotation("rdmastack.io/applied-hash"));
  EXPECT_EQ(second[0].GetString({"endpoints", "0", "nodeName"}), "a0");
  // Everyone in slice 1 leaves: it is dropped.
  pods.resize(99);
  const auto third = RenderEndpointSlices(SamplePool(), V1(), pods, assigned);
  EXPECT_EQ(third.size(), 1u);
}

TEST(EndpointsTest, NoPodsOneEmptySlice) {
  const auto slices = RenderEndpointSlices(SamplePool(), V1(), {});
  ASSERT_EQ(slices.size(), 1u);
  EXPECT_TRUE(slices[0].GetArray({"endpoints"}).empty());
}

TEST(EndpointsTest, HeadlessServiceWithoutSelector) {
  const k8s::JsonObject svc = RenderService(SamplePool(), V1());
  EXPECT_EQ(svc.Name(), "kvcache-gateway");
  EXPECT_EQ(svc.GetString({"spec", "clusterIP"}), "None");
  EXPECT_FALSE(svc.Has({"spec", "selector"}));
  EXPECT_EQ(svc.GetString({"metadata", "ownerReferences", "0", "kind"}), "GatewayPool");
}

}  // namespace
}  // namespace rdmastack::gatewaypool
