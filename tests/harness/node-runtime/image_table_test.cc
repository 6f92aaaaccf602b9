#include "tests/harness/node-runtime/image_table.h"

#include <gtest/gtest.h>

#include "tests/harness/cluster_env.h"

namespace rdmastack::sim {
namespace {

TEST(ImageRepository, StripsTagDigestAndDockerHubDefaults) {
  EXPECT_EQ(ImageRepository("rdmastack/agent:0.1.0"), "rdmastack/agent");
  EXPECT_EQ(ImageRepository("docker.io/versity/versitygw:v1.8.0"), "versity/versitygw");
  EXPECT_EQ(ImageRepository("docker.io/library/busybox"), "busybox");
  EXPECT_EQ(ImageRepository("ghcr.io/a/b@sha256:0123"), "ghcr.io/a/b");
  EXPECT_EQ(ImageRepository("registry:5000/a/b:v1"), "registry:5000/a/b");
  EXPECT_EQ(ImageRepository("registry:5000/a/b"), "registry:5000/a/b");
}

constexpr char kTable[] = R"(
images:
- names: [rdmastack/gateway, ghcr.io/rdmastack/gateway]
  entrypoint: [/usr/local/bin/rdmastack-gateway]
  cmd: [run]
  env: {B: two, A: one}
  workingDir: /work
  files:
    /usr/local/bin/rdmastack-gateway: ${BUILD_DIR}/bin/rdmastack-gateway
- names: [rdmastack.invalid/host]
)";

TEST(ImageTable, LooksUpByAnyNameAndTagAndExpandsVariables) {
  auto table = ImageTable::Parse(kTable, "images.yaml", {{"BUILD_DIR", "/b"}});
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  auto image = table->Lookup("ghcr.io/rdmastack/gateway:0.1.0");
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  EXPECT_EQ((*image)->entrypoint, std::vector<std::string>{"/usr/local/bin/rdmastack-gateway"});
  EXPECT_EQ((*image)->cmd, std::vector<std::string>{"run"});
  ASSERT_EQ((*image)->env.size(), 2u);
  EXPECT_EQ((*image)->env[0], (std::pair<std::string, std::string>{"B", "two"}));  // image order
  EXPECT_EQ((*image)->working_dir, "/work");
  ASSERT_EQ((*image)->files.size(), 1u);
  EXPECT_EQ((*image)->files[0].source, "/b/bin/rdmastack-gateway");
  EXPECT_EQ((*image)->files[0].target, "/usr/local/bin/rdmastack-gateway");
  EXPECT_TRUE((*image)->files[0].read_only);
  EXPECT_TRUE(table->Lookup("rdmastack.invalid/host:1").ok());
}

TEST(ImageTable, UnknownImageSaysWhereToAddIt) {
  auto table = ImageTable::Parse(kTable, "images.yaml", {{"BUILD_DIR", "/b"}});
  ASSERT_TRUE(table.ok());
  auto image = table->Lookup("quay.io/other/thing:2");
  ASSERT_FALSE(image.ok());
  EXPECT_EQ(image.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(
      image.status().message(),
      "image \"quay.io/other/thing:2\" (repository quay.io/other/thing) is not in the "
      "simulated node's image table images.yaml; add an entry that maps it to a build output");
}

TEST(ImageTable, UnsetVariableIsAnErrorNamingTheFlag) {
  auto table = ImageTable::Parse(kTable, "images.yaml", {});
  ASSERT_FALSE(table.ok());
  EXPECT_NE(table.status().message().find(
                "uses ${BUILD_DIR}, which is not set (pass --var BUILD_DIR=VALUE)"),
            std::string::npos)
      << table.status().message();
}

TEST(ImageTable, MalformedTablesAreErrors) {
  EXPECT_FALSE(ImageTable::Parse("images: {}", "t", {}).ok());
  EXPECT_FALSE(ImageTable::Parse("images:\n- entrypoint: [x]\n", "t", {}).ok());
  EXPECT_FALSE(ImageTable::Parse("images:\n- names: [a]\n  files: {relative: /x}\n", "t", {}).ok());
  EXPECT_FALSE(ImageTable::Parse("images: [", "t", {}).ok());
}

TEST(ImageTable, TheRepositoryTableLoads) {
  auto table =
      ImageTable::Load(::rdmastack::testing::SourcePath("tests/harness/node-runtime/images.yaml"),
                       {{"BUILD_DIR", "/b"}, {"SOURCE_DIR", "/s"}, {"VERSITYGW", "/v"}});
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  for (const char* ref : {"rdmastack/agent:0.1.0", "rdmastack/gateway:0.1.0",
                          "versity/versitygw:v1.8.0", "rdmastack.invalid/host:1"}) {
    EXPECT_TRUE(table->Lookup(ref).ok()) << ref;
  }
}

}  // namespace
}  // namespace rdmastack::sim

namespace rdmastack::sim {
namespace {

TEST(ImageTable, AnEntryForATagWinsOverTheRepository) {
  constexpr char kTagged[] = R"(images:
- names: [registry.local/rdmastack/vgwrdma:1.8.0-cuobj2]
  entrypoint: [/v2]
- names: [registry.local/rdmastack/vgwrdma]
  entrypoint: [/any]
)";
  auto table = ImageTable::Parse(kTagged, "images.yaml", {});
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ((*table->Lookup("registry.local/rdmastack/vgwrdma:1.8.0-cuobj2"))->entrypoint[0],
            "/v2");
  EXPECT_EQ((*table->Lookup("registry.local/rdmastack/vgwrdma:1.8.0-cuobj1"))->entrypoint[0],
            "/any");
  EXPECT_EQ((*table->Lookup("registry.local/rdmastack/vgwrdma"))->entrypoint[0], "/any");
  EXPECT_EQ(ImageTag("registry:5000/a/b:v1"), "v1");
  EXPECT_EQ(ImageTag("registry:5000/a/b"), "");
}

}  // namespace
}  // namespace rdmastack::sim
