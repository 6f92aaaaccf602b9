#include "tests/harness/node-runtime/image_table.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "tests/harness/child_process.h"
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

// A table image is files of the build, with no manifest: a digest could only be taken on trust.
TEST(ImageTable, AReferenceByDigestIsRefused) {
  auto table = ImageTable::Parse(kTable, "images.yaml", {{"BUILD_DIR", "/b"}});
  ASSERT_TRUE(table.ok());
  auto image = table->Lookup("rdmastack.invalid/host@sha256:" + std::string(64, '0'));
  EXPECT_EQ(image.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(image.status().message().find("no manifest could prove that digest"), std::string::npos)
      << image.status().message();
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

// The variables scripts/cluster.sh passes for the image table's components (scripts/lib/
// components.sh, IMAGE_TABLE_COMPONENTS), with the cache at `cache`.
std::map<std::string, std::string> ComponentVars(const std::string& cache) {
  ::rdmastack::testing::ChildProcess bash(
      "component-vars", {"/bin/bash", "-c",
                         "RDMASTACK_CACHE='" + cache + "' && source '" +
                             ::rdmastack::testing::SourcePath("scripts/lib/components.sh") +
                             "' && image_table_component_vars"});
  EXPECT_EQ(bash.WaitExit(std::chrono::seconds(30)), 0) << bash.Output();
  std::map<std::string, std::string> vars;
  std::istringstream lines(bash.Output());
  for (std::string line; std::getline(lines, line);) {
    const size_t eq = line.find('=');
    if (eq != std::string::npos) vars[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return vars;
}

// Every file an image entry names is produced by a build on the path that starts simulated nodes:
// under ${BUILD_DIR} by this CMake build, under ${SOURCE_DIR} by the checkout, and any other
// ${NAME} by a component of scripts/lib/components.sh (cluster.sh up builds those first). An entry
// naming anything else would leave a fresh machine's pods in ErrImagePull.
TEST(ImageTable, EveryFileOfTheRepositoryTableComesFromABuild) {
  const std::string cache = "/nonexistent-rdmastack-cache";
  std::map<std::string, std::string> vars = ComponentVars(cache);
  ASSERT_FALSE(vars.empty()) << "components.sh lists no image table component";
  for (const auto& [name, path] : vars) {
    EXPECT_EQ(path.rfind(cache + "/", 0), 0u) << name << "=" << path << " is not a cached build";
  }
  vars["BUILD_DIR"] = ::rdmastack::testing::BinaryDir();
  vars["SOURCE_DIR"] = ::rdmastack::testing::SourceDir();
  auto table = ImageTable::Load(
      ::rdmastack::testing::SourcePath("tests/harness/node-runtime/images.yaml"), vars);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  int from_components = 0;
  for (const ImageSpec& image : table->images()) {
    for (const BindMount& f : image.files) {
      if (f.source.rfind(cache + "/", 0) == 0) {
        ++from_components;
        continue;
      }
      EXPECT_TRUE(std::filesystem::exists(f.source))
          << image.names.front() << ": " << f.target << " comes from " << f.source
          << ", which this build did not produce (add the target that makes it, or a component)";
    }
  }
  EXPECT_GT(from_components, 0) << "no image takes a file from a component";
}

TEST(ImageTable, MissingFilesNameTheImageAndTheFile) {
  auto table = ImageTable::Parse(kTable, "images.yaml", {{"BUILD_DIR", "/nonexistent-build"}});
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ(
      table->MissingFiles(),
      std::vector<std::string>{"rdmastack/gateway: /usr/local/bin/rdmastack-gateway comes from "
                               "/nonexistent-build/bin/rdmastack-gateway, which does not exist"});
  auto image = table->Lookup("rdmastack/gateway:0.1.0");
  ASSERT_TRUE(image.ok());
  Status files = CheckImageFiles(**image, "rdmastack/gateway:0.1.0");
  EXPECT_EQ(files.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(files.message().find("image rdmastack/gateway:0.1.0: /usr/local/bin/rdmastack-gateway"),
            std::string::npos)
      << files.message();
  auto host = table->Lookup("rdmastack.invalid/host");
  ASSERT_TRUE(host.ok());
  EXPECT_TRUE(CheckImageFiles(**host, "rdmastack.invalid/host").ok());
}

TEST(ImageTable, TheRepositoryTableLoads) {
  auto table =
      ImageTable::Load(::rdmastack::testing::SourcePath("tests/harness/node-runtime/images.yaml"),
                       {{"BUILD_DIR", "/b"}, {"SOURCE_DIR", "/s"}, {"VERSITYGW", "/v"}});
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  for (const char* ref : {"registry.local/rdmastack/libcuobjserver:2.0.0.109",
                          "versity/versitygw:v1.8.0", "rdmastack.invalid/host:1"}) {
    EXPECT_TRUE(table->Lookup(ref).ok()) << ref;
  }
  // The images this project builds, and the vgwrdma stand-ins built FROM the gateway image
  // (standin_images.sh), run from their OCI archives, never from the table.
  for (const char* ref : {"ghcr.io/rdmastack/operator:0.1.0", "ghcr.io/rdmastack/agent:0.1.0",
                          "ghcr.io/rdmastack/gateway:0.1.0", "ghcr.io/rdmastack/client:0.1.0",
                          "registry.local/rdmastack/vgwrdma:1.8.0-cuobj1",
                          "registry.local/rdmastack/vgwrdma:1.8.0-cuobj2"}) {
    EXPECT_EQ(table->Lookup(ref).status().code(), StatusCode::kNotFound) << ref;
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
