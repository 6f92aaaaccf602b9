#include "lib/compat/library_digest.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "base/sha256.h"

namespace rdmastack::compat {
namespace {

namespace fs = std::filesystem;

class LibraryDigestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "libdigest.XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Write(const std::string& name, const std::string& bytes) {
    std::ofstream(dir_ + "/" + name, std::ios::binary) << bytes;
  }
  std::string dir_;
};

TEST_F(LibraryDigestTest, MatchingBytesPass) {
  Write("libcuobjclient.so.1.2.0.68", "the pinned release");
  EXPECT_TRUE(
      VerifyLibraryDigest(dir_, "libcuobjclient.so.1.2.0.68", Sha256Hex("the pinned release"))
          .ok());
  EXPECT_EQ(*FileSha256Hex(dir_, "libcuobjclient.so.1.2.0.68"), Sha256Hex("the pinned release"));
}

TEST_F(LibraryDigestTest, OneChangedByteIsAMismatchNamingFileAndBothDigests) {
  Write("libcuobjserver.so.1.2.0.68", "the pinned releasE");
  const std::string want = Sha256Hex("the pinned release");
  Status s = VerifyLibraryDigest(dir_, "libcuobjserver.so.1.2.0.68", want);
  ASSERT_TRUE(IsLibraryDigestMismatch(s)) << s.ToString();
  EXPECT_NE(
      s.message().find("libcuobjserver.so.1.2.0.68: sha256 is " + Sha256Hex("the pinned releasE") +
                       ", the compatibility data expects " + want),
      std::string::npos)
      << s.message();
}

TEST_F(LibraryDigestTest, NoExpectedDigestChecksNothing) {
  EXPECT_TRUE(VerifyLibraryDigest(dir_, "absent.so", "").ok());
  EXPECT_TRUE(CheckLibraryDigest("x", "aa", "").ok());
}

TEST_F(LibraryDigestTest, EmptyFileHasTheEmptyDigest) {
  Write("empty.so", "");
  EXPECT_EQ(*FileSha256Hex(dir_, "empty.so"), Sha256Hex(""));
  EXPECT_TRUE(IsLibraryDigestMismatch(VerifyLibraryDigest(dir_, "empty.so", std::string(64, 'a'))));
}

// A link with the pinned name must not make the check hash whatever it points at (the bytes the
// loader would map are the link target's, which the pin does not name).
TEST_F(LibraryDigestTest, LinksDirectoriesAndOddNamesAreRefusedNotFollowed) {
  Write("real.so", "the pinned release");
  ASSERT_EQ(::symlink("real.so", (dir_ + "/link.so").c_str()), 0);
  Status link = VerifyLibraryDigest(dir_, "link.so", Sha256Hex("the pinned release"));
  EXPECT_EQ(link.code(), StatusCode::kFailedPrecondition) << link.ToString();
  EXPECT_FALSE(IsLibraryDigestMismatch(link));
  fs::create_directory(dir_ + "/sub.so");
  EXPECT_EQ(VerifyLibraryDigest(dir_, "sub.so", std::string(64, 'a')).code(),
            StatusCode::kFailedPrecondition);
  ASSERT_EQ(::mkfifo((dir_ + "/fifo.so").c_str(), 0600), 0);
  EXPECT_EQ(VerifyLibraryDigest(dir_, "fifo.so", std::string(64, 'a')).code(),
            StatusCode::kFailedPrecondition);
  for (const char* name : {"", ".", "..", "../real.so", "a/b"}) {
    EXPECT_EQ(VerifyLibraryDigest(dir_, name, std::string(64, 'a')).code(),
              StatusCode::kInvalidArgument)
        << name;
  }
  EXPECT_EQ(VerifyLibraryDigest(dir_, "absent.so", std::string(64, 'a')).code(),
            StatusCode::kNotFound);
}

TEST(LibraryDigest, IsSha256HexAcceptsOnlyTheLowerCaseSpelling) {
  EXPECT_TRUE(IsSha256Hex(std::string(64, '0')));
  EXPECT_FALSE(IsSha256Hex(std::string(63, '0')));
  EXPECT_FALSE(IsSha256Hex(std::string(65, '0')));
  EXPECT_FALSE(IsSha256Hex("sha256:" + std::string(64, '0')));
  EXPECT_FALSE(IsSha256Hex(std::string(63, '0') + "g"));
  EXPECT_FALSE(IsSha256Hex(std::string(63, '0') + "A"));
}

}  // namespace
}  // namespace rdmastack::compat
