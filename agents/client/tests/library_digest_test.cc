#include "agents/client/library_digest.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "agents/client/options.h"
#include "agents/client/tests/test_util.h"
#include "base/sha256.h"
#include "lib/compat/library_digest.h"

namespace rdmastack::client {
namespace {

namespace fs = std::filesystem;

using testing::FakeClientLibrary;
using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;

constexpr char kFile[] = "libcuobjclient.so.1.2.0.68";

class StagedLibrariesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(staging());
    fs::copy_file(FakeClientLibrary(), staging() / kFile);
    fs::create_symlink(kFile, staging() / "libcuobjclient.so.1");
    real_ = Sha256Hex(ReadFile(FakeClientLibrary()));
  }
  fs::path staging() const { return tmp_.path() / "staging"; }
  std::string dir() const { return staging().string(); }
  TempDir tmp_;
  std::string real_;
};

TEST_F(StagedLibrariesTest, NothingPinnedChecksNothing) {
  WriteFile(staging() / "extra.so", "anything");
  EXPECT_TRUE(CheckStagedLibraries(dir(), {}).ok());
}

TEST_F(StagedLibrariesTest, ThePinnedBytesPassBesideTheSonameLink) {
  Status s = CheckStagedLibraries(dir(), {{kFile, real_}});
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST_F(StagedLibrariesTest, OtherBytesUnderThePinnedNameAreAMismatchNamingBothDigests) {
  WriteFile(staging() / kFile, ReadFile(FakeClientLibrary()) + "x");
  Status s = CheckStagedLibraries(dir(), {{kFile, real_}});
  ASSERT_TRUE(compat::IsLibraryDigestMismatch(s)) << s.ToString();
  EXPECT_NE(s.message().find(std::string(kFile) + ": sha256 is " +
                             Sha256Hex(ReadFile(FakeClientLibrary()) + "x") +
                             ", the compatibility data expects " + real_),
            std::string::npos)
      << s.message();
}

TEST_F(StagedLibrariesTest, AMissingPinnedFileOrAnUnpinnedFileIsRefused) {
  Status missing =
      CheckStagedLibraries(dir(), {{kFile, real_}, {"libcuobjclient.so.1.3.0.1", real_}});
  ASSERT_TRUE(compat::IsLibraryDigestMismatch(missing)) << missing.ToString();
  EXPECT_NE(missing.message().find("libcuobjclient.so.1.3.0.1 (sha256 " + real_ + ") is not in"),
            std::string::npos)
      << missing.message();
  WriteFile(staging() / "libc.so.6", "would shadow the workloads' libc");
  Status extra = CheckStagedLibraries(dir(), {{kFile, real_}});
  ASSERT_TRUE(compat::IsLibraryDigestMismatch(extra)) << extra.ToString();
  EXPECT_EQ(extra.message().rfind("libc.so.6 in the library image is not a file", 0), 0u)
      << extra.message();
}

// The pinned name as a link to a file with the right bytes is still refused: the check reads the
// name the installer copies, never what a link leads to.
TEST_F(StagedLibrariesTest, APinnedNameThatIsALinkIsRefused) {
  fs::rename(staging() / kFile, tmp_.path() / "real");
  fs::create_symlink(tmp_.path() / "real", staging() / kFile);
  EXPECT_TRUE(compat::IsLibraryDigestMismatch(CheckStagedLibraries(dir(), {{kFile, real_}})));
}

TEST(LibraryDigestFlag, ParsesNameEqualsHexOnce) {
  const std::string hex(64, 'c');
  LibraryDigests d;
  ASSERT_TRUE(ParseLibraryDigestFlag(std::string(kFile) + "=" + hex, &d).ok());
  EXPECT_EQ(d.at(kFile), hex);
  EXPECT_FALSE(ParseLibraryDigestFlag(std::string(kFile) + "=" + hex, &d).ok());
  for (const std::string& bad :
       {std::string(kFile), "=" + hex, "../x=" + hex, "a/b=" + hex, ".=" + hex,
        std::string(kFile) + "=" + std::string(63, 'c'), std::string(kFile) + "=sha256:" + hex}) {
    LibraryDigests e;
    Status s = ParseLibraryDigestFlag(bad, &e);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_TRUE(e.empty()) << bad;
  }
}

TEST(LibraryDigestFlag, RunOptionsTakeItRepeatedly) {
  const std::string a(64, 'a'), b(64, 'b');
  auto o = ParseRunOptions(
      {"--profile", "ml/p", "--install-dir", "/i", "--library-sha256",
       "libcuobjclient.so.1.2.0.68=" + a, "--library-sha256", "libcuobjclient.so.1.2.0.69=" + b},
      "gpu-node-0");
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->library_sha256.size(), 2u);
  EXPECT_FALSE(ParseRunOptions({"--profile", "ml/p", "--install-dir", "/i", "--library-sha256",
                                "libcuobjclient.so.1.2.0.68"},
                               "gpu-node-0")
                   .ok());
}

}  // namespace
}  // namespace rdmastack::client
