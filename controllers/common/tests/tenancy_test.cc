#include "controllers/common/tenancy.h"

#include <gtest/gtest.h>

namespace rdmastack::controllers {
namespace {

TenancyPolicy Policy() {
  TenancyPolicy p;
  p.images = {*ParseImageRule("registry.example.com/nvidia/"),
              *ParseImageRule("team-a=ghcr.io/team-a/")};
  p.backend_paths = {*ParseBackendPathRule("/lustre/shared"),
                     *ParseBackendPathRule("team-a=/data/team-a/")};
  return p;
}

TEST(TenancyTest, RulesParseWithAndWithoutANamespace) {
  auto any = ParseImageRule("registry.example.com/nvidia/");
  ASSERT_TRUE(any.ok());
  EXPECT_EQ(any->namespace_, "");
  auto scoped = ParseBackendPathRule("team-a=/data/team-a");
  ASSERT_TRUE(scoped.ok());
  EXPECT_EQ(scoped->namespace_, "team-a");
  EXPECT_EQ(scoped->prefix, "/data/team-a");
  // A path or image with '=' after its first '/' is not a namespace.
  EXPECT_EQ(ParseImageRule("reg.io/a=b/")->namespace_, "");
  EXPECT_FALSE(ParseImageRule("registry.example.com").ok());  // would allow ...com.evil.io
  EXPECT_FALSE(ParseImageRule("team-a=").ok());
  EXPECT_FALSE(ParseBackendPathRule("relative/dir").ok());
  EXPECT_FALSE(ParseBackendPathRule("/data/../etc").ok());
  EXPECT_FALSE(ParseBackendPathRule("/data//x").ok());
}

TEST(TenancyTest, ImagesByPrefixAndNamespace) {
  const TenancyPolicy p = Policy();
  EXPECT_FALSE(CheckImage(p, "team-b", "gateway.image", "registry.example.com/nvidia/vgwrdma:2"));
  EXPECT_FALSE(CheckImage(p, "team-a", "gateway.image", "ghcr.io/team-a/vgwrdma:2"));
  const auto refused = CheckImage(p, "team-b", "gateway.image", "ghcr.io/team-a/vgwrdma:2");
  ASSERT_TRUE(refused);
  EXPECT_EQ(*refused,
            "gateway.image ghcr.io/team-a/vgwrdma:2 is not from a registry the operator allows in "
            "namespace team-b (allowed: registry.example.com/nvidia/); use an image from one of "
            "them, or ask the admin to allow it (--allow-image)");
  EXPECT_TRUE(CheckImage(p, "team-b", "x", "registry.example.com.evil.io/nvidia/x:1"));
  EXPECT_FALSE(CheckImage(TenancyPolicy{}, "any", "x", "anything:1"));  // no rules: allowed
}

TEST(TenancyTest, BackendPathsByComponent) {
  const TenancyPolicy p = Policy();
  EXPECT_FALSE(CheckBackendPath(p, "team-b", "backend.posix.hostPath", "/lustre/shared"));
  EXPECT_FALSE(CheckBackendPath(p, "team-b", "backend.posix.hostPath", "/lustre/shared/vol0/"));
  EXPECT_TRUE(CheckBackendPath(p, "team-b", "backend.posix.hostPath", "/lustre/shared-other"));
  EXPECT_TRUE(CheckBackendPath(p, "team-b", "backend.posix.hostPath", "/lustre/shared/../../etc"));
  EXPECT_TRUE(CheckBackendPath(p, "team-b", "backend.posix.hostPath", "/data/team-a/x"));
  EXPECT_FALSE(CheckBackendPath(p, "team-a", "backend.posix.hostPath", "/data/team-a/x"));
  const auto refused = CheckBackendPath(p, "team-a", "backend.posix.hostPath", "/var/lib/kubelet");
  ASSERT_TRUE(refused);
  EXPECT_NE(refused->find("(allowed: /lustre/shared, /data/team-a/)"), std::string::npos)
      << *refused;
  TenancyPolicy root;
  root.backend_paths = {*ParseBackendPathRule("/")};
  EXPECT_FALSE(CheckBackendPath(root, "x", "f", "/anything"));
}

TEST(TenancyTest, ServedNamespaces) {
  TenancyPolicy p;
  EXPECT_FALSE(CheckNamespace(p, "anywhere", "GatewayPool"));  // none listed: every namespace
  p.namespaces = {"team-a", "team-b"};
  EXPECT_FALSE(CheckNamespace(p, "team-b", "GatewayPool"));
  const auto refused = CheckNamespace(p, "team-c", "ClientProfile");
  ASSERT_TRUE(refused);
  EXPECT_EQ(*refused,
            "the operator serves ClientProfiles only in namespaces team-a, team-b (its RBAC "
            "reaches Secrets and owned objects there only); create this ClientProfile in one of "
            "them, or ask the admin to add namespace team-c (chart: tenancy.namespaces, flag "
            "--tenant-namespace)");
  EXPECT_TRUE(CheckNamespaceName("team-a").ok());
  for (const char* bad : {"", "Team", "-a", "a-", "a_b", "a.b"})
    EXPECT_FALSE(CheckNamespaceName(bad).ok()) << bad;
  EXPECT_FALSE(CheckNamespaceName(std::string(64, 'a')).ok());
}

}  // namespace
}  // namespace rdmastack::controllers
