#include "gateway/launcher/library_pin.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "base/sha256.h"
#include "gateway/launcher/test_paths.h"
#include "lib/compat/library_digest.h"

namespace rdmastack::gateway {
namespace {

namespace fs = std::filesystem;
using testing::ElfFixture;

const LibraryPin kPinV1{"", "1.2.0.68", 1};

// A library directory laid out like the init container leaves it.
class LibraryDir {
 public:
  LibraryDir()
      : dir_(fs::temp_directory_path() /
             ("libpin-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++))) {
    fs::create_directories(dir_);
  }
  ~LibraryDir() { fs::remove_all(dir_); }
  void Copy(const std::string& fixture, const std::string& as) {
    fs::copy_file(ElfFixture(fixture), dir_ / as);
  }
  void Link(const std::string& target, const std::string& name) {
    fs::create_symlink(target, dir_ / name);
  }
  LibraryPin Pin(LibraryPin pin) const {
    pin.dir = dir_.string();
    return pin;
  }
  std::string path() const { return dir_.string(); }

 private:
  static inline int counter_ = 0;
  fs::path dir_;
};

void InstallV1(LibraryDir& d) {
  d.Copy("lib-v1/libcuobjserver.so.1.2.0.68", "libcuobjserver.so.1.2.0.68");
  d.Link("libcuobjserver.so.1.2.0.68", "libcuobjserver.so.1");
}

TEST(LibraryPin, MatchingPairPasses) {
  LibraryDir d;
  InstallV1(d);
  Status s = VerifyLibraryPin(d.Pin(kPinV1), ElfFixture("bin/fake_vgwrdma_v1"));
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST(LibraryPin, BuildDirectoryLayoutPasses) {
  // CMake's own layout (real file + SONAME link + dev link) is what an extracted RPM looks like.
  LibraryPin pin = kPinV1;
  pin.dir = ElfFixture("lib-v1");
  Status s = VerifyLibraryPin(pin, ElfFixture("bin/fake_vgwrdma_v1"));
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST(LibraryPin, GatewayBuiltForOtherMajorIsRefusedNamingBothSides) {
  LibraryDir d;
  InstallV1(d);
  Status s = VerifyLibraryPin(d.Pin(kPinV1), ElfFixture("bin/fake_vgwrdma_v2"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("needs libcuobjserver.so.2"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("provides libcuobjserver.so.1"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("fake_vgwrdma_v2"), std::string::npos) << s.message();
}

TEST(LibraryPin, MissingPinnedVersionListsWhatIsThere) {
  LibraryDir d;
  d.Copy("lib-v2/libcuobjserver.so.2.0.0.109", "libcuobjserver.so.2.0.0.109");
  Status s = VerifyLibraryPin(d.Pin(kPinV1), ElfFixture("bin/fake_vgwrdma_v1"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_NE(s.message().find("libcuobjserver.so.1.2.0.68 is missing"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("found 2.0.0.109"), std::string::npos) << s.message();
}

TEST(LibraryPin, MislabelledFileIsRefusedBySoname) {
  LibraryDir d;
  d.Copy("lib-v2/libcuobjserver.so.2.0.0.109", "libcuobjserver.so.1.2.0.68");
  Status s = VerifyLibraryPin(d.Pin(kPinV1), ElfFixture("bin/fake_vgwrdma_v1"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("declares SONAME libcuobjserver.so.2, expected libcuobjserver.so.1"),
            std::string::npos)
      << s.message();
}

TEST(LibraryPin, MissingSonameLinkSaysHowToCreateIt) {
  LibraryDir d;
  d.Copy("lib-v1/libcuobjserver.so.1.2.0.68", "libcuobjserver.so.1.2.0.68");
  Status s = VerifyLibraryPin(d.Pin(kPinV1), ElfFixture("bin/fake_vgwrdma_v1"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("ln -s libcuobjserver.so.1.2.0.68"), std::string::npos) << s.message();
}

TEST(LibraryPin, SonameLinkToAnOlderCopyIsStale) {
  LibraryDir d;
  d.Copy("lib-v1/libcuobjserver.so.1.2.0.68", "libcuobjserver.so.1.2.0.68");
  d.Copy("lib-v1/libcuobjserver.so.1.2.0.68", "libcuobjserver.so.1.1.0.44");
  d.Link("libcuobjserver.so.1.1.0.44", "libcuobjserver.so.1");
  Status s = VerifyLibraryPin(d.Pin(kPinV1), ElfFixture("bin/fake_vgwrdma_v1"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("resolves to libcuobjserver.so.1.1.0.44"), std::string::npos)
      << s.message();
}

TEST(LibraryPin, GatewayWithoutServerLibraryIsRefused) {
  LibraryDir d;
  InstallV1(d);
  // The fake library itself needs only libc: a stand-in for plain versitygw in rdma mode.
  Status s = VerifyLibraryPin(d.Pin(kPinV1), ElfFixture("lib-v2/libcuobjserver.so.2.0.0.109"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("does not link libcuobjserver"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("--mode http"), std::string::npos) << s.message();
}

TEST(LibraryPin, MixedMajorsInOneBinaryAreAStaleBuild) {
  LibraryPinFacts facts;
  facts.pinned_file_present = true;
  facts.pinned_soname = "libcuobjserver.so.1";
  facts.gateway_needed = {"libcuobjserver.so.1", "libstdc++.so.6", "libcuobjserver.so.2"};
  facts.soname_link_present = true;
  facts.soname_link_target = "libcuobjserver.so.1.2.0.68";
  LibraryPin pin = kPinV1;
  pin.dir = "/lib/cuobj";
  Status s = CheckLibraryPin(pin, "/usr/local/bin/vgwrdma", facts);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("stale mixed build"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("libcuobjserver.so.1, libcuobjserver.so.2"), std::string::npos);
}

TEST(LibraryPin, UnreadableGatewayBinaryIsAnError) {
  LibraryDir d;
  InstallV1(d);
  Status s = VerifyLibraryPin(d.Pin(kPinV1), d.path() + "/no-such-vgwrdma");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cannot read the gateway binary"), std::string::npos) << s.message();
}

TEST(LibraryPin, ValidatesVersionAndMajor) {
  EXPECT_TRUE(ValidateLibraryPin({"/d", "1.2.0.68", 1}).ok());
  EXPECT_TRUE(ValidateLibraryPin({"/d", "2.0.0", 2}).ok());
  for (const LibraryPin& bad :
       {LibraryPin{"/d", "1.2", 1}, LibraryPin{"/d", "1.2.x.68", 1}, LibraryPin{"/d", "", 1},
        LibraryPin{"/d", "1..0.68", 1}, LibraryPin{"", "1.2.0.68", 1}}) {
    EXPECT_EQ(ValidateLibraryPin(bad).code(), StatusCode::kInvalidArgument) << bad.full_version;
  }
  Status s = ValidateLibraryPin({"/d", "2.0.0.109", 1});
  EXPECT_NE(s.message().find("is major 2 but --server-lib-major is 1"), std::string::npos)
      << s.message();
}

TEST(LibraryPin, PinnedBytesPassAndOtherBytesAreADigestMismatch) {
  LibraryDir d;
  InstallV1(d);
  const std::string real = testing::ReadWholeFile(ElfFixture("lib-v1/libcuobjserver.so.1.2.0.68"));
  LibraryPin pin = d.Pin(kPinV1);
  pin.sha256 = Sha256Hex(real);
  EXPECT_TRUE(VerifyLibraryBytes(pin).ok());
  // The same name, SONAME and links, other bytes: every check but the digest passes.
  LibraryDir other;
  other.Copy("lib-v1/libcuobjserver.so.1.2.0.68", "libcuobjserver.so.1.2.0.68");
  fs::resize_file(other.path() + "/libcuobjserver.so.1.2.0.68", real.size() + 1);
  other.Link("libcuobjserver.so.1.2.0.68", "libcuobjserver.so.1");
  LibraryPin tampered = other.Pin(pin);
  EXPECT_TRUE(VerifyLibraryPin(tampered, ElfFixture("bin/fake_vgwrdma_v1")).ok());
  Status s = VerifyLibraryBytes(tampered);
  ASSERT_TRUE(compat::IsLibraryDigestMismatch(s)) << s.ToString();
  EXPECT_NE(s.message().find("libcuobjserver.so.1.2.0.68: sha256 is "), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("expects " + pin.sha256), std::string::npos) << s.message();
}

TEST(LibraryPin, UnpinnedBytesAreNotChecked) {
  LibraryDir d;
  InstallV1(d);
  EXPECT_TRUE(VerifyLibraryBytes(d.Pin(kPinV1)).ok());
}

TEST(LibraryPin, ValidatesTheSha256Spelling) {
  EXPECT_TRUE(ValidateLibraryPin({"/d", "1.2.0.68", 1, std::string(64, 'f')}).ok());
  Status s = ValidateLibraryPin({"/d", "1.2.0.68", 1, "sha256:" + std::string(64, 'f')});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("--server-lib-sha256"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace rdmastack::gateway
