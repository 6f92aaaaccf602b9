// OciImageStore over archives built here, blob by blob, the way scripts/images.sh's buildah lays
// them out (index.json naming one manifest, blobs/sha256/<hex>): references by tag and by digest,
// and archives whose bytes no longer match their digests.
#include "tests/harness/node-runtime/oci_image_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "base/sha256.h"

namespace rdmastack::sim {
namespace {

namespace fs = std::filesystem;

constexpr char kRef[] = "ghcr.io/rdmastack/agent:0.1.0";

void Write(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << bytes;
}

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string Digest(const std::string& bytes) {
  return "sha256:" + Sha256Hex(bytes);
}

class OciImageStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "oci-store.XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    fs::create_directories(dir_ / "archives");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes archives/<name>.oci.tar with one layer holding /hello; `tamper` may change a blob's
  // bytes after its digest was taken. Returns the manifest digest.
  std::string BuildArchive(
      const std::string& name, const std::string& ref, const std::string& hello,
      const std::function<void(const fs::path& layout, const std::string& manifest,
                               const std::string& layer)>& tamper = {}) {
    const fs::path work = dir_ / ("work-" + name);
    const fs::path layout = work / "layout";
    Write(work / "root/hello", hello);
    const fs::path layer_tgz = work / "layer.tar.gz";
    EXPECT_EQ(std::system(
                  ("tar -czf " + layer_tgz.string() + " -C " + (work / "root").string() + " hello")
                      .c_str()),
              0);
    const std::string layer = Slurp(layer_tgz);
    const std::string config =
        R"({"config":{"Entrypoint":["/hello"],"Env":["A=1"],"User":"0:0"},"rootfs":{"type":"layers"}})";
    const std::string manifest =
        R"({"schemaVersion":2,"config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":")" +
        Digest(config) + R"(","size":)" + std::to_string(config.size()) +
        R"(},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":")" +
        Digest(layer) + R"(","size":)" + std::to_string(layer.size()) + "}]}";
    const std::string index =
        R"({"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":")" +
        Digest(manifest) + R"(","size":)" + std::to_string(manifest.size()) +
        R"(,"annotations":{"org.opencontainers.image.ref.name":")" + ref + R"("}}]})";
    for (const std::string* blob : {&layer, &config, &manifest}) {
      Write(layout / "blobs/sha256" / Sha256Hex(*blob), *blob);
    }
    Write(layout / "index.json", index);
    Write(layout / "oci-layout", R"({"imageLayoutVersion":"1.0.0"})");
    if (tamper) tamper(layout, Digest(manifest), Digest(layer));
    EXPECT_EQ(std::system(("tar -cf " + (dir_ / "archives" / (name + ".oci.tar")).string() +
                           " -C " + layout.string() + " index.json oci-layout blobs")
                              .c_str()),
              0);
    return Digest(manifest);
  }

  OciImageStore Store() {
    return OciImageStore((dir_ / "archives").string(), (dir_ / "cache").string());
  }

  fs::path dir_;
};

TEST_F(OciImageStoreTest, ByTagAndByDigestGiveTheSameVerifiedImage) {
  const std::string digest = BuildArchive("agent", kRef, "agent v1");
  OciImageStore store = Store();
  StatusOr<OciImage> by_tag = store.Pull(kRef);
  ASSERT_TRUE(by_tag.ok()) << by_tag.status().ToString();
  EXPECT_EQ(by_tag->manifest_digest, digest);
  EXPECT_EQ(Slurp(fs::path(by_tag->rootfs) / "hello"), "agent v1");
  for (const std::string& ref :
       {"ghcr.io/rdmastack/agent@" + digest, "ghcr.io/rdmastack/agent:any-tag@" + digest}) {
    StatusOr<OciImage> by_digest = store.Pull(ref);
    ASSERT_TRUE(by_digest.ok()) << ref << ": " << by_digest.status().ToString();
    EXPECT_EQ(by_digest->manifest_digest, digest);
    EXPECT_EQ(by_digest->config.entrypoint, std::vector<std::string>{"/hello"});
    EXPECT_TRUE(store.Has(ref));
  }
}

// Two builds of one repository: each digest finds its own, and a digest no archive has fails the
// pull (never the other build, never the image table).
TEST_F(OciImageStoreTest, ADigestNoArchiveHasIsRefusedNotResolvedByName) {
  const std::string v1 = BuildArchive("agent", kRef, "agent v1");
  const std::string v2 =
      BuildArchive("agent-rollout", "ghcr.io/rdmastack/agent:rollout", "agent v2");
  OciImageStore store = Store();
  EXPECT_EQ(Slurp(fs::path(store.Pull("ghcr.io/rdmastack/agent@" + v2)->rootfs) / "hello"),
            "agent v2");
  EXPECT_EQ(Slurp(fs::path(store.Pull("ghcr.io/rdmastack/agent@" + v1)->rootfs) / "hello"),
            "agent v1");
  const std::string other = Digest("not an image of ours");
  StatusOr<OciImage> stale = store.Pull("ghcr.io/rdmastack/agent:0.1.0@" + other);
  ASSERT_EQ(stale.status().code(), StatusCode::kFailedPrecondition) << stale.status().ToString();
  EXPECT_NE(stale.status().message().find("with manifest digest " + other), std::string::npos)
      << stale.status().message();
  EXPECT_FALSE(store.Has("ghcr.io/rdmastack/agent@" + other));
  // The right digest under another repository's name is not that image either.
  EXPECT_EQ(store.Pull("ghcr.io/rdmastack/client@" + v1).status().code(), StatusCode::kNotFound);
}

TEST_F(OciImageStoreTest, AManifestWhoseBytesAreNotItsDigestIsRefused) {
  BuildArchive("agent", kRef, "agent v1",
               [](const fs::path& layout, const std::string& manifest, const std::string&) {
                 const fs::path blob = layout / "blobs/sha256" / manifest.substr(7);
                 std::string bytes = Slurp(blob);
                 bytes.insert(bytes.size() - 1, R"(,"annotations":{"x":"y"})");
                 Write(blob, bytes);
               });
  OciImageStore store = Store();
  StatusOr<OciImage> image = store.Pull(kRef);
  ASSERT_EQ(image.status().code(), StatusCode::kDataLoss) << image.status().ToString();
  EXPECT_NE(image.status().message().find("manifest blob sha256:"), std::string::npos)
      << image.status().message();
}

TEST_F(OciImageStoreTest, ALayerWhoseBytesAreNotItsDigestIsRefusedBeforeItIsUnpacked) {
  const std::string digest = BuildArchive(
      "agent", kRef, "agent v1",
      [this](const fs::path& layout, const std::string&, const std::string& layer) {
        Write(dir_ / "evil/hello", "not what was reviewed");
        ASSERT_EQ(std::system(("tar -czf " + (layout / "blobs/sha256" / layer.substr(7)).string() +
                               " -C " + (dir_ / "evil").string() + " hello")
                                  .c_str()),
                  0);
      });
  OciImageStore store = Store();
  StatusOr<OciImage> image = store.Pull("ghcr.io/rdmastack/agent@" + digest);
  ASSERT_EQ(image.status().code(), StatusCode::kDataLoss) << image.status().ToString();
  EXPECT_NE(image.status().message().find("layer blob"), std::string::npos)
      << image.status().message();
  EXPECT_FALSE(fs::exists(dir_ / "cache" / digest.substr(7) / "rootfs/hello"));
}

TEST(ImageDigest, IsWhatFollowsTheAt) {
  EXPECT_EQ(ImageDigest("ghcr.io/a/b@sha256:0123"), "sha256:0123");
  EXPECT_EQ(ImageDigest("ghcr.io/a/b:v1@sha256:0123"), "sha256:0123");
  EXPECT_EQ(ImageDigest("registry:5000/a/b:v1"), "");
  EXPECT_EQ(ImageTag("ghcr.io/a/b:v1@sha256:0123"), "v1");
}

}  // namespace
}  // namespace rdmastack::sim
