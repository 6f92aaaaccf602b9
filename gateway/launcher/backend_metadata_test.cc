#include "gateway/launcher/backend_metadata.h"

#include <gtest/gtest.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gateway/launcher/test_paths.h"

namespace rdmastack::gateway {
namespace {

namespace fs = std::filesystem;

class BackendMetadataTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gw-metadata-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "root");
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
};

TEST_F(BackendMetadataTest, ARootWithUserXattrsPassesAndIsLeftAsItWas) {
  // The reference: does this file system keep user attributes at all?
  const fs::path probe = dir_ / "probe";
  std::ofstream(probe) << "";
  if (::setxattr(probe.c_str(), "user.t", "1", 1, 0) != 0)
    GTEST_SKIP() << dir_ << " keeps no user xattrs: " << std::strerror(errno);
  fs::remove(probe);

  StatusOr<HostDir> root = HostDir::Open((dir_ / "root").string(), false);
  ASSERT_TRUE(root.ok()) << root.status().message();
  EXPECT_TRUE(CheckUserXattr(*root).ok());
  EXPECT_TRUE(fs::is_empty(dir_ / "root")) << "the scratch file is gone";
}

TEST_F(BackendMetadataTest, ARootWithoutUserXattrsIsRefusedWithTheWaysOut) {
  testing::ScopedRamfs ramfs((dir_ / "root").string());
  if (!ramfs.mounted()) GTEST_SKIP() << ramfs.error();
  StatusOr<HostDir> root = HostDir::Open((dir_ / "root").string(), false);
  ASSERT_TRUE(root.ok()) << root.status().message();

  const Status s = CheckUserXattr(*root);
  ASSERT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.message();
  EXPECT_EQ(s.message().rfind("BackendNoUserXattr: ", 0), 0u) << s.message();
  for (const std::string& want :
       {(dir_ / "root").string(), std::string("user_xattr"), std::string("Sidecar"),
        std::string("None"), std::string("Operation not supported")})
    EXPECT_NE(s.message().find(want), std::string::npos) << want << " in " << s.message();
  EXPECT_TRUE(fs::is_empty(dir_ / "root")) << "no scratch file is left on the backend";
}

TEST(SidecarApartTest, TheSidecarIsBesideTheRootNeverInOrAroundIt) {
  EXPECT_TRUE(CheckSidecarApart("/l/vol0/kv-n1", "/l/vol0/meta-kv-n1").ok());
  EXPECT_TRUE(CheckSidecarApart("/l/vol0/kv-n1", "/l/meta/kv-n1").ok());
  const std::pair<const char*, const char*> refused[] = {
      {"/l/vol0/kv-n1", "/l/vol0/kv-n1"},
      {"/l/vol0/kv-n1", "/l/vol0/kv-n1/.meta"},
      {"/l/vol0/kv-n1", "/l/vol0"},
      {"/l/vol0/kv-n1/", "/l/vol0/kv-n1/m"},
      // Beside the root, but versitygw 1.8.0 refuses a sidecar whose path begins with the root's.
      {"/l/vol0/kv-n1", "/l/vol0/kv-n1.meta"},
      {"/l/vol0/kv", "/l/vol0/kvmeta"},
  };
  for (const auto& [root, sidecar] : refused) {
    const Status s = CheckSidecarApart(root, sidecar);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << root << " " << sidecar;
    EXPECT_NE(s.message().find("sidecarPathTemplate"), std::string::npos) << s.message();
  }
}

TEST(MetadataModeTest, TheCrdSpellingsParse) {
  EXPECT_EQ(ParseMetadataMode("Xattr").value(), MetadataMode::kXattr);
  EXPECT_EQ(ParseMetadataMode("sidecar").value(), MetadataMode::kSidecar);
  EXPECT_EQ(ParseMetadataMode("NONE").value(), MetadataMode::kNone);
  EXPECT_FALSE(ParseMetadataMode("").ok());
  EXPECT_FALSE(ParseMetadataMode("nometa").ok());
}

}  // namespace
}  // namespace rdmastack::gateway
