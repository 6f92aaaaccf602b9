#include "tests/harness/node-runtime/dns_config.h"

#include <gtest/gtest.h>

#include "tests/harness/node-runtime/test_objects.h"

namespace rdmastack::sim {
namespace {

const ClusterDns kDns{"10.96.0.10", "cluster.local"};
constexpr char kNode[] =
    "# the node's\nsearch corp.example\nnameserver 192.0.2.53\noptions edns0\n";

k8s::JsonObject DnsPod(const std::string& spec) {
  return ParseJson(R"({"metadata":{"name":"p","namespace":"demo"},"spec":)" + spec + "}");
}

constexpr char kClusterFirst[] =
    "search demo.svc.cluster.local svc.cluster.local cluster.local\n"
    "nameserver 10.96.0.10\noptions ndots:5\n";

TEST(ResolvConf, ClusterFirstIsTheDefaultAndAsksTheClusterDnsWithTheNamespacesSearchPath) {
  EXPECT_EQ(RenderResolvConf(DnsPod("{}"), kDns, kNode), kClusterFirst);
  EXPECT_EQ(RenderResolvConf(DnsPod(R"({"dnsPolicy":"ClusterFirst"})"), kDns, kNode),
            kClusterFirst);
}

TEST(ResolvConf, HostNetworkPodsNeedClusterFirstWithHostNetForTheClusterDns) {
  const std::string node = "search corp.example\nnameserver 192.0.2.53\noptions edns0\n";
  EXPECT_EQ(RenderResolvConf(DnsPod(R"({"hostNetwork":true})"), kDns, kNode), node);
  EXPECT_EQ(
      RenderResolvConf(DnsPod(R"({"hostNetwork":true,"dnsPolicy":"ClusterFirstWithHostNet"})"),
                       kDns, kNode),
      kClusterFirst);
  EXPECT_EQ(RenderResolvConf(DnsPod(R"({"dnsPolicy":"Default"})"), kDns, kNode), node);
}

TEST(ResolvConf, WithoutAClusterDnsEveryPolicyKeepsTheNodesResolver) {
  EXPECT_EQ(RenderResolvConf(DnsPod("{}"), ClusterDns{}, kNode),
            "search corp.example\nnameserver 192.0.2.53\noptions edns0\n");
}

TEST(ResolvConf, DnsConfigAddsServersAndSearchesAndOverridesOptionsByName) {
  EXPECT_EQ(RenderResolvConf(DnsPod(R"({"dnsConfig":{"nameservers":["192.0.2.1"],
                                "searches":["svc.cluster.local","x.example"],
                                "options":[{"name":"ndots","value":"2"},{"name":"rotate"}]}})"),
                             kDns, kNode),
            "search demo.svc.cluster.local svc.cluster.local cluster.local x.example\n"
            "nameserver 10.96.0.10\nnameserver 192.0.2.1\noptions ndots:2 rotate\n");
  EXPECT_EQ(
      RenderResolvConf(DnsPod(R"({"dnsPolicy":"None","dnsConfig":{"nameservers":["192.0.2.1"]}})"),
                       kDns, kNode),
      "nameserver 192.0.2.1\n");
}

}  // namespace
}  // namespace rdmastack::sim
