#include "controllers/clientprofile/node_retirement.h"

#include <gtest/gtest.h>

namespace rdmastack::clientprofile {
namespace {

std::optional<std::string> L(const char* v) {
  return v == nullptr ? std::nullopt : std::optional<std::string>(v);
}

TEST(NodeRetirement, AWantedNodeIsEligibleOrReadyByItsClientPod) {
  NodeMembership m;
  m.wanted = true;
  EXPECT_EQ(NextClientLabel(m), L("eligible"));
  m.label = "eligible";
  m.client_ready = true;
  EXPECT_EQ(NextClientLabel(m), L("ready"));
}

TEST(NodeRetirement, ANodeLeavesThroughRetiringThenUninstallThenNoLabel) {
  NodeMembership m;
  m.label = "ready";
  m.client_pod = true;
  EXPECT_EQ(NextClientLabel(m), L("retiring"));  // never straight to uninstall
  m.label = "retiring";
  EXPECT_EQ(NextClientLabel(m), L("retiring"));  // its client pod is still stopping
  m.client_pod = false;
  m.holders = 2;
  EXPECT_EQ(NextClientLabel(m), L("retiring"));  // two workloads still use the files
  m.holders = 0;
  EXPECT_EQ(NextClientLabel(m), L("uninstall"));
  m.label = "uninstall";
  m.uninstall_pod = true;
  EXPECT_EQ(NextClientLabel(m), L("uninstall"));  // not Ready yet
  m.uninstall_ready = true;
  EXPECT_EQ(NextClientLabel(m), std::nullopt);
  m.label.reset();
  EXPECT_EQ(NextClientLabel(m), std::nullopt);
}

TEST(NodeRetirement, AnUnknownValueIsTreatedAsFilesThatMayBeThere) {
  NodeMembership m;
  m.label = "something-else";
  EXPECT_EQ(NextClientLabel(m), L("retiring"));
}

TEST(NodeRetirement, ANodeThatComesBackWaitsForItsUninstallPodToGo) {
  NodeMembership m;
  m.wanted = true;
  m.label = "uninstall";
  m.uninstall_pod = true;
  EXPECT_EQ(NextClientLabel(m), L("retiring"));
  m.label = "retiring";
  EXPECT_EQ(NextClientLabel(m), L("retiring"));  // still terminating
  m.uninstall_pod = false;
  EXPECT_EQ(NextClientLabel(m), L("eligible"));
}

TEST(NodeRetirement, StatusSaysWhatANodeWaitsFor) {
  NodeMembership m;
  m.label = "retiring";
  m.holders = 7;
  const std::vector<std::string> holders = {"a", "b", "c", "d", "e", "f", "g"};
  auto r = DescribeRetirement(m, NextClientLabel(m), holders);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->phase, "HeldByPods");
  EXPECT_EQ(r->pods, (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  m.holders = 0;
  m.client_pod = true;
  EXPECT_EQ(DescribeRetirement(m, NextClientLabel(m), {})->phase, "WaitingForClientPod");
  m.client_pod = false;
  EXPECT_EQ(DescribeRetirement(m, NextClientLabel(m), {})->phase, "Uninstalling");
  m.label = "uninstall";
  m.uninstall_ready = true;
  EXPECT_FALSE(DescribeRetirement(m, NextClientLabel(m), {}).has_value());
  m.wanted = true;
  m.label = "ready";
  EXPECT_FALSE(DescribeRetirement(m, NextClientLabel(m), {}).has_value());
}

}  // namespace
}  // namespace rdmastack::clientprofile
