// The library image as its author could make it: every class of hostile content is refused with
// the offending name, nothing is installed, and what was installed before stays.
#include "agents/client/library_plan.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>

#include "agents/client/installer.h"
#include "agents/client/tests/test_util.h"

namespace rdmastack::client {
namespace {

using testing::FakeClientLibrary;
using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;
namespace fs = std::filesystem;

std::string HostileLibrary(const std::string& dir) {
  return ::rdmastack::testing::BinaryDir() + "/tests/fixtures/gateway/elf/" + dir +
         "/libcuobjclient.so.1.2.0.68";
}

// Every entry below `root`, as relative paths.
std::set<std::string> Tree(const fs::path& root) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    out.insert(fs::relative(e.path(), root).string());
  }
  return out;
}

// A host with two profiles' directories: `victim` installed and working, `install` the one
// whose image is tried. Whatever the image holds, nothing outside `install` may change.
class LibraryRefusalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(FakeClientLibrary())) << "build gateway_elf_fixtures first";
    src_ = tmp_.path() / "image";
    fs::create_directories(src_);
    fs::copy_file(FakeClientLibrary(), src_ / "libcuobjclient.so.1.2.0.68");
    // The other profile, installed from a good image: its lib/ is what a hostile SONAME aims at.
    Installer victim((tmp_.path() / "client/h1-victim").string());
    ASSERT_TRUE(victim.SyncLibraries(src_.string()).ok());
    // This profile, installed once from the good image.
    ASSERT_TRUE(installer_.SyncLibraries(src_.string()).ok());
    before_ = Tree(tmp_.path() / "client");
  }

  // The image is refused: the message names every `names`, and nothing on the host changed.
  void ExpectRefused(const std::vector<std::string>& names) {
    auto planned = installer_.SyncLibraries(src_.string());
    ASSERT_FALSE(planned.ok());
    EXPECT_EQ(planned.status().code(), StatusCode::kFailedPrecondition)
        << planned.status().ToString();
    const std::string& m = planned.status().message();
    EXPECT_NE(m.find("the library image is refused"), std::string::npos) << m;
    EXPECT_NE(m.find("Nothing from the image is installed"), std::string::npos) << m;
    for (const std::string& n : names) EXPECT_NE(m.find(n), std::string::npos) << n << "\n" << m;
    EXPECT_EQ(Tree(tmp_.path() / "client"), before_);
    EXPECT_EQ(ReadFile(tmp_.path() / "client/install/lib/libcuobjclient.so.1.2.0.68"),
              ReadFile(FakeClientLibrary()));
    EXPECT_EQ(fs::read_symlink(tmp_.path() / "client/h1-victim/lib/libcuobjclient.so.1"),
              "libcuobjclient.so.1.2.0.68");
  }

  TempDir tmp_;
  fs::path src_;
  Installer installer_{(tmp_.path() / "client/install").string()};
  std::set<std::string> before_;
};

TEST_F(LibraryRefusalTest, NamesReadFromInsideTheElfMustBePlainNames) {
  for (const char* dir :
       {"lib-client-soname-escape", "lib-client-soname-long", "lib-client-needed-escape"}) {
    SCOPED_TRACE(dir);
    ASSERT_TRUE(fs::exists(HostileLibrary(dir))) << "build gateway_elf_fixtures first";
    fs::copy_file(HostileLibrary(dir), src_ / "libcuobjclient.so.1.2.0.68",
                  fs::copy_options::overwrite_existing);
    const std::string what = std::string(dir) == "lib-client-needed-escape" ? "NEEDED" : "SONAME";
    ExpectRefused({"'libcuobjclient.so.1.2.0.68': its ELF " + what});
  }
  ExpectRefused({"../../h1-victim/lib/libcuobjclient.so.1"});  // the NEEDED entry, shown
}

TEST_F(LibraryRefusalTest, EntryNamesThatAreNotPlainNames) {
  WriteFile(src_ / "lib\nnewline.so", "x");
  WriteFile(src_ / "esc\x1b[2Jape.so", "x");
  WriteFile(src_ / (std::string(kHostTempPrefix) + "0011223344556677"), "x");
  WriteFile(src_ / std::string(201, 'n'), "x");
  ExpectRefused({"lib\\x0anewline.so", "esc\\x1b[2Jape.so", "reserved for temporary files",
                 "201 bytes long"});
}

TEST_F(LibraryRefusalTest, LinksThatLeaveOrNameNothing) {
  fs::create_symlink("/etc/shadow", src_ / "libabs.so");
  fs::create_symlink("../../h1-victim/lib/libcuobjclient.so.1.2.0.68", src_ / "libup.so");
  fs::create_symlink("sub/libx.so", src_ / "libsub.so");
  fs::create_symlink("..", src_ / "libdotdot.so");
  fs::create_symlink("libmissing.so", src_ / "libdangling.so");
  ExpectRefused({"'libabs.so' -> '/etc/shadow' leaves the image",
                 "'libup.so' -> '../../h1-victim/lib/libcuobjclient.so.1.2.0.68' leaves",
                 "'libsub.so' -> 'sub/libx.so' leaves", "'libdotdot.so' -> '..' leaves",
                 "'libdangling.so' -> 'libmissing.so' names nothing in the image"});
}

TEST_F(LibraryRefusalTest, SetuidSetgidStickyAndWorldWritableFiles) {
  for (const auto& [name, mode] :
       std::vector<std::pair<std::string, mode_t>>{{"libsuid.so", 04755},
                                                   {"libsgid.so", 02755},
                                                   {"libsticky.so", 01644},
                                                   {"libworld.so", 0666}}) {
    WriteFile(src_ / name, "x");
    ASSERT_EQ(::chmod((src_ / name).c_str(), mode), 0);
  }
  ExpectRefused({"'libsuid.so' has mode 4755", "'libsgid.so' has mode 2755",
                 "'libsticky.so' has mode 1644", "'libworld.so' has mode 0666: world-writable"});
}

TEST_F(LibraryRefusalTest, WhatIsNotARegularFileOrALink) {
  fs::create_directories(src_ / "subdir");
  ASSERT_EQ(::mkfifo((src_ / "libfifo.so").c_str(), 0644), 0);  // never opened: it would block
  const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string sock_path = (src_ / "libsock.so").string();
  ASSERT_LT(sock_path.size(), sizeof addr.sun_path);
  std::memcpy(addr.sun_path, sock_path.c_str(), sock_path.size() + 1);
  ASSERT_EQ(::bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  std::vector<std::string> names = {"'subdir' is a directory", "'libfifo.so' is a FIFO",
                                    "'libsock.so' is a socket"};
  if (::mknod((src_ / "libnull.so").c_str(), S_IFCHR | 0644, ::makedev(1, 3)) == 0) {
    names.push_back("'libnull.so' is a character device");
  }
  ExpectRefused(names);
  ::close(sock);
}

TEST_F(LibraryRefusalTest, FilesOverTheBudgetCountedOnSizeAndOnBlocks) {
  installer_ = Installer((tmp_.path() / "client/install").string(),
                         LibraryBudget{.max_file_bytes = 1 << 20, .max_total_bytes = 3 << 20});
  ASSERT_TRUE(installer_.SyncLibraries(src_.string()).ok());  // the good image fits
  // Sparse: a small allocation, a large size.
  {
    const int fd = ::open((src_ / "libsparse.so").c_str(), O_WRONLY | O_CREAT, 0644);
    ASSERT_EQ(::ftruncate(fd, 1 << 30), 0);
    ::close(fd);
  }
  // Preallocated: 1 byte long, 2 MiB allocated.
  bool preallocated = false;
  {
    const int fd = ::open((src_ / "libprealloc.so").c_str(), O_WRONLY | O_CREAT, 0644);
    ASSERT_EQ(::write(fd, "x", 1), 1);
    preallocated = ::fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 2 << 20) == 0;
    ::close(fd);
  }
  std::vector<std::string> names = {"'libsparse.so' is 1 GiB long",
                                    "over the per-file budget of 1 MiB (--max-library-file-size)",
                                    "over the per-image budget of 3 MiB (--max-library-size)"};
  if (preallocated) names.push_back("'libprealloc.so' is 1 bytes long with 2 MiB allocated");
  ExpectRefused(names);

  // Files each under the per-file budget, together over the per-image one.
  fs::remove(src_ / "libsparse.so");
  fs::remove(src_ / "libprealloc.so");
  for (const char* n : {"liba.so", "libb.so", "libc.so", "libd.so"}) {
    WriteFile(src_ / n, std::string(900 << 10, 'x'));
  }
  ExpectRefused({"its files take 3.5 MiB, over the per-image budget of 3 MiB"});
}

TEST_F(LibraryRefusalTest, TooManyEntries) {
  for (size_t i = 0; i < kMaxLibraryEntries; ++i) WriteFile(src_ / ("f" + std::to_string(i)), "");
  ExpectRefused({"it holds more than 64 entries"});
}

// A good image: regular files copied with their execute bit only, links to siblings kept, the
// SONAME link added.
TEST(LibraryPlan, AGoodImageIsCopiedDefangedAndLinked) {
  TempDir tmp;
  const fs::path src = tmp.path() / "image";
  fs::create_directories(src);
  fs::copy_file(FakeClientLibrary(), src / "libcuobjclient.so.1.2.0.68");
  ::chmod((src / "libcuobjclient.so.1.2.0.68").c_str(), 0775);
  WriteFile(src / "README", "text\n");
  ::chmod((src / "README").c_str(), 0460);
  fs::create_symlink("libcuobjclient.so.1.2.0.68", src / "libcuobjclient.so");
  Installer installer((tmp.path() / "install").string());
  auto changes = installer.SyncLibraries(src.string());
  ASSERT_TRUE(changes.ok()) << changes.status().ToString();
  const fs::path lib = tmp.path() / "install/lib";
  struct stat st {};
  ASSERT_EQ(::stat((lib / "libcuobjclient.so.1.2.0.68").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  ASSERT_EQ(::stat((lib / "README").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  EXPECT_EQ(fs::read_symlink(lib / "libcuobjclient.so.1"), "libcuobjclient.so.1.2.0.68");
  EXPECT_EQ(fs::read_symlink(lib / "libcuobjclient.so"), "libcuobjclient.so.1.2.0.68");
  // A copy whose mode someone widened is put back.
  ::chmod((lib / "libcuobjclient.so.1.2.0.68").c_str(), 04777);
  EXPECT_EQ(*installer.SyncLibraries(src.string()),
            std::vector<std::string>{"copied lib/libcuobjclient.so.1.2.0.68"});
  ASSERT_EQ(::stat((lib / "libcuobjclient.so.1.2.0.68").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
}

TEST(LibraryPlan, FormatBytes) {
  EXPECT_EQ(FormatBytes(12), "12 bytes");
  EXPECT_EQ(FormatBytes(1536), "1.5 KiB");
  EXPECT_EQ(FormatBytes(64 << 20), "64 MiB");
  EXPECT_EQ(FormatBytes(uint64_t{1} << 30), "1 GiB");
}

}  // namespace
}  // namespace rdmastack::client
