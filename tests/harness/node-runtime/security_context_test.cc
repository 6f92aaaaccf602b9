#include "tests/harness/node-runtime/security_context.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/harness/node-runtime/test_objects.h"

namespace rdmastack::sim {
namespace {

k8s::JsonObject Pod(const std::string& security_context = "{}") {
  return ParseJson(R"({"metadata":{"namespace":"ns","name":"p"},"spec":{"securityContext":)" +
                   security_context + "}}");
}

k8s::JsonObject Container(const std::string& security_context = "{}") {
  return ParseJson(R"({"name":"c","securityContext":)" + security_context + "}");
}

bool Has(const ContainerSecurity& s, const std::string& cap) {
  return std::find(s.capabilities.begin(), s.capabilities.end(), cap) != s.capabilities.end();
}

TEST(SecurityContext, TheImageUserAppliesUnlessThePodOrContainerNamesOne) {
  auto image = ResolveSecurity(Pod(), Container(), "65532:65532", "", "", AllCapabilities());
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  EXPECT_EQ(image->uid, 65532u);
  EXPECT_EQ(image->gid, 65532u);

  auto pod = ResolveSecurity(Pod(R"({"runAsUser":1000,"runAsGroup":2000})"), Container(),
                             "65532:65532", "", "", AllCapabilities());
  ASSERT_TRUE(pod.ok());
  EXPECT_EQ(pod->uid, 1000u);
  EXPECT_EQ(pod->gid, 2000u);

  auto container = ResolveSecurity(Pod(R"({"runAsUser":1000})"), Container(R"({"runAsUser":7})"),
                                   "", "", "", AllCapabilities());
  ASSERT_TRUE(container.ok());
  EXPECT_EQ(container->uid, 7u);
}

TEST(SecurityContext, ANamedUserResolvesThroughTheImagesPasswd) {
  const std::string passwd = "root:x:0:0::/root:/bin/sh\nnonroot:x:65532:65533::/home:/bin/false\n";
  auto named = ResolveSecurity(Pod(), Container(), "nonroot", passwd, "", AllCapabilities());
  ASSERT_TRUE(named.ok()) << named.status().ToString();
  EXPECT_EQ(named->uid, 65532u);
  EXPECT_EQ(named->gid, 65533u);  // the user's primary group

  auto unknown = ResolveSecurity(Pod(), Container(), "nobody", passwd, "", AllCapabilities());
  EXPECT_EQ(unknown.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(unknown.status().message().find("unable to find user nobody"), std::string::npos);
}

TEST(SecurityContext, RunAsNonRootRefusesARootImage) {
  auto root = ResolveSecurity(Pod(R"({"runAsNonRoot":true})"), Container(), "0:0", "", "",
                              AllCapabilities());
  ASSERT_FALSE(root.ok());
  EXPECT_EQ(root.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(root.status().message(),
            "container has runAsNonRoot and image will run as root (container c of pod ns/p)");
  // An image without a user runs as root too.
  EXPECT_FALSE(ResolveSecurity(Pod(), Container(R"({"runAsNonRoot":true})"), "", "", "", {}).ok());
  // A pod that names a non-root user passes.
  EXPECT_TRUE(
      ResolveSecurity(Pod(R"({"runAsNonRoot":true,"runAsUser":1})"), Container(), "0:0", "", "", {})
          .ok());
}

TEST(SecurityContext, CapabilitiesFollowContainerdsOrder) {
  auto defaults = ResolveSecurity(Pod(), Container(), "", "", "", AllCapabilities());
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->capabilities, DefaultCapabilities());
  EXPECT_FALSE(Has(*defaults, "CAP_SYS_ADMIN"));

  auto only = ResolveSecurity(
      Pod(), Container(R"({"capabilities":{"drop":["ALL"],"add":["NET_ADMIN","IPC_LOCK"]}})"), "",
      "", "", AllCapabilities());
  ASSERT_TRUE(only.ok());
  EXPECT_EQ(only->capabilities, (std::vector<std::string>{"CAP_NET_ADMIN", "CAP_IPC_LOCK"}));

  auto all_but =
      ResolveSecurity(Pod(), Container(R"({"capabilities":{"add":["ALL"],"drop":["CHOWN"]}})"), "",
                      "", "", AllCapabilities());
  ASSERT_TRUE(all_but.ok());
  EXPECT_EQ(all_but->capabilities.size(), AllCapabilities().size() - 1);
  EXPECT_FALSE(Has(*all_but, "CAP_CHOWN"));
  EXPECT_TRUE(Has(*all_but, "CAP_SYS_ADMIN"));
}

TEST(SecurityContext, NoContainerGetsACapabilityTheRuntimeLacks) {
  std::vector<std::string> held = AllCapabilities();
  held.erase(std::find(held.begin(), held.end(), "CAP_SYS_RESOURCE"));
  auto privileged = ResolveSecurity(Pod(), Container(R"({"privileged":true})"), "", "", "", held);
  ASSERT_TRUE(privileged.ok());
  EXPECT_EQ(privileged->capabilities, held);
  auto added =
      ResolveSecurity(Pod(), Container(R"({"capabilities":{"add":["SYS_RESOURCE","NET_ADMIN"]}})"),
                      "", "", "", held);
  ASSERT_TRUE(added.ok());
  EXPECT_FALSE(Has(*added, "CAP_SYS_RESOURCE"));
  EXPECT_TRUE(Has(*added, "CAP_NET_ADMIN"));
  // This process's own bounding set is a subset of what the kernel knows.
  for (const std::string& c : BoundingCapabilities()) {
    EXPECT_NE(std::find(AllCapabilities().begin(), AllCapabilities().end(), c),
              AllCapabilities().end());
  }
}

TEST(SecurityContext, PrivilegedReadOnlyRootAndNoNewPrivileges) {
  auto privileged =
      ResolveSecurity(Pod(), Container(R"({"privileged":true})"), "", "", "", AllCapabilities());
  ASSERT_TRUE(privileged.ok());
  EXPECT_TRUE(privileged->privileged);
  EXPECT_EQ(privileged->capabilities, AllCapabilities());
  EXPECT_FALSE(privileged->no_new_privileges);

  auto locked = ResolveSecurity(
      Pod(), Container(R"({"readOnlyRootFilesystem":true,"allowPrivilegeEscalation":false})"), "",
      "", "", AllCapabilities());
  ASSERT_TRUE(locked.ok());
  EXPECT_TRUE(locked->read_only_root);
  EXPECT_TRUE(locked->no_new_privileges);

  EXPECT_FALSE(ResolveSecurity(Pod(),
                               Container(R"({"privileged":true,"allowPrivilegeEscalation":false})"),
                               "", "", "", {})
                   .ok());
}

TEST(SecurityContext, SupplementalGroupsAndFsGroupAreAdditionalGroups) {
  auto s = ResolveSecurity(Pod(R"({"supplementalGroups":[10,11],"fsGroup":12})"), Container(),
                           "5:5", "", "", AllCapabilities());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->additional_gids, (std::vector<uint32_t>{10, 11, 12}));
}

}  // namespace
}  // namespace rdmastack::sim
