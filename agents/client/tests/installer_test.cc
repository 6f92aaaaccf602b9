#include "agents/client/installer.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string_view>

#include "agents/client/tests/test_util.h"

namespace rdmastack::client {
namespace {

using testing::FakeClientLibrary;
using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;
namespace fs = std::filesystem;

ino_t Inode(const fs::path& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 ? st.st_ino : 0;
}

TEST(Installer, WritesOnlyWhatChanged) {
  TempDir tmp;
  Installer installer(tmp / "install");
  ASSERT_TRUE(installer.Prepare().ok());
  EXPECT_TRUE(fs::is_directory(tmp.path() / "install/log"));
  auto first = installer.WriteFiles({{"a.json", "1\n"}, {"client.env", "A=1\n"}});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(*first, (std::vector<std::string>{"a.json", "client.env"}));
  const ino_t env_inode = Inode(tmp.path() / "install/client.env");

  auto second = installer.WriteFiles({{"a.json", "2\n"}, {"client.env", "A=1\n"}});
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*second, std::vector<std::string>{"a.json"});
  EXPECT_EQ(ReadFile(tmp.path() / "install/a.json"), "2\n");
  // Unchanged content is not rewritten (a rename would give a new inode).
  EXPECT_EQ(Inode(tmp.path() / "install/client.env"), env_inode);

  // Someone edited a file by hand: the next pass puts ours back.
  WriteFile(tmp.path() / "install/client.env", "A=2\n");
  EXPECT_EQ(*installer.WriteFiles({{"client.env", "A=1\n"}}),
            std::vector<std::string>{"client.env"});
  EXPECT_EQ(ReadFile(tmp.path() / "install/client.env"), "A=1\n");
  // No temporary files are left behind.
  for (const auto& e : fs::directory_iterator(tmp.path() / "install")) {
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
  }
}

TEST(Installer, MirrorsTheLibraryDirectoryAndLinksTheSoname) {
  TempDir tmp;
  const fs::path src = tmp.path() / "cuobjclient";
  fs::create_directories(src);
  ASSERT_TRUE(fs::exists(FakeClientLibrary())) << "build gateway_elf_fixtures first";
  fs::copy_file(FakeClientLibrary(), src / "libcuobjclient.so.1.2.0.68");
  WriteFile(src / "README", "not an ELF file\n");
  fs::create_symlink("libcuobjclient.so.1.2.0.68", src / "libcuobjclient.so");

  Installer installer(tmp / "install");
  auto changes = installer.SyncLibraries(src.string());
  ASSERT_TRUE(changes.ok()) << changes.status().ToString();
  EXPECT_EQ(*changes,
            (std::vector<std::string>{
                "copied lib/README", "linked lib/libcuobjclient.so -> libcuobjclient.so.1.2.0.68",
                "linked lib/libcuobjclient.so.1 -> libcuobjclient.so.1.2.0.68",
                "copied lib/libcuobjclient.so.1.2.0.68"}));
  const fs::path lib = tmp.path() / "install/lib";
  EXPECT_EQ(ReadFile(lib / "libcuobjclient.so.1.2.0.68"),
            ReadFile(src / "libcuobjclient.so.1.2.0.68"));
  EXPECT_EQ(fs::read_symlink(lib / "libcuobjclient.so.1"), "libcuobjclient.so.1.2.0.68");
  // The link resolves on the host too: it is relative.
  EXPECT_EQ(ReadFile(lib / "libcuobjclient.so.1"), ReadFile(src / "libcuobjclient.so.1.2.0.68"));

  // A steady pass changes nothing.
  const ino_t inode = Inode(lib / "libcuobjclient.so.1.2.0.68");
  EXPECT_TRUE(installer.SyncLibraries(src.string())->empty());
  EXPECT_EQ(Inode(lib / "libcuobjclient.so.1.2.0.68"), inode);

  // Same size, different bytes: copied again. A file gone from the source leaves lib/.
  // (After a pause: file times come from a clock that ticks every few milliseconds.)
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::string bytes = ReadFile(lib / "libcuobjclient.so.1.2.0.68");
  bytes[bytes.size() - 1] ^= 0x5a;
  WriteFile(lib / "libcuobjclient.so.1.2.0.68", bytes);
  fs::remove(src / "README");
  EXPECT_EQ(
      *installer.SyncLibraries(src.string()),
      (std::vector<std::string>{"copied lib/libcuobjclient.so.1.2.0.68", "removed lib/README"}));
  EXPECT_EQ(ReadFile(lib / "libcuobjclient.so.1.2.0.68"),
            ReadFile(src / "libcuobjclient.so.1.2.0.68"));
  EXPECT_FALSE(fs::exists(lib / "README"));
}

// The library image is chosen by the profile's author; the client runs with the node's root at
// /host. A link in the image that leaves it must not bring a host file into the profile's
// directory, which every labelled pod mounts (issue 35: kubelet keys, other pods' secrets).
TEST(Installer, ALinkOutOfTheLibraryImageIsRefusedAndNothingFromTheImageIsInstalled) {
  TempDir tmp;
  const fs::path host_secret = tmp.path() / "host/var/lib/kubelet/pki/kubelet.key";
  fs::create_directories(host_secret.parent_path());
  WriteFile(host_secret, "PRIVATE KEY OF THE NODE\n");
  const fs::path src = tmp.path() / "cuobjclient";
  fs::create_directories(src);
  WriteFile(src / "libgood.so", "good\n");
  Installer installer(tmp / "install");
  ASSERT_TRUE(installer.SyncLibraries(src.string()).ok());
  const fs::path lib = tmp.path() / "install/lib";

  for (const std::string& target : std::vector<std::string>{
           host_secret.string(), "../host/var/lib/kubelet/pki/kubelet.key", "sub/../../host"}) {
    SCOPED_TRACE(target);
    fs::remove(src / "libevil.so");
    fs::create_symlink(target, src / "libevil.so");
    WriteFile(src / "libgood.so", "good, version 2\n");
    auto refused = installer.SyncLibraries(src.string());
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition);
    // Long targets are shown cut (ShowName): their start is enough to find them.
    EXPECT_NE(refused.status().message().find("'libevil.so' -> '" + target.substr(0, 40)),
              std::string::npos)
        << refused.status().ToString();
    EXPECT_FALSE(fs::exists(lib / "libevil.so"));
    // What was installed stays as it was: running pods keep their library.
    EXPECT_EQ(ReadFile(lib / "libgood.so"), "good\n");
  }
  // A directory or a fifo in the image is no library file: the image is refused, naming them.
  fs::remove(src / "libevil.so");
  fs::create_directories(src / "subdir");
  ASSERT_EQ(::mkfifo((src / "pipe").c_str(), 0600), 0);
  auto refused = installer.SyncLibraries(src.string());
  ASSERT_EQ(refused.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.status().message().find("'subdir' is a directory"), std::string::npos);
  EXPECT_NE(refused.status().message().find("'pipe' is a FIFO"), std::string::npos);
  EXPECT_EQ(ReadFile(lib / "libgood.so"), "good\n");
  EXPECT_FALSE(fs::exists(lib / "subdir"));
  EXPECT_FALSE(fs::exists(lib / "pipe"));
}

// What a running application mapped stays as it was when a new client copies another build of the
// library over it, or removes it: every copy is a rename, every removal an unlink.
TEST(Installer, AMappedLibraryKeepsItsBytesThroughAnUpdateAndARemoval) {
  TempDir tmp;
  const fs::path src = tmp.path() / "cuobjclient";
  const std::string old_bytes(8192, 'A'), new_bytes(8192, 'B');
  WriteFile(src / "libcuobjclient.so.1.2.0.68", old_bytes);
  Installer installer(tmp / "install");
  ASSERT_TRUE(installer.SyncLibraries(src.string()).ok());
  const fs::path lib = tmp.path() / "install/lib/libcuobjclient.so.1.2.0.68";
  const int fd = ::open(lib.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  void* mapped = ::mmap(nullptr, old_bytes.size(), PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  ASSERT_NE(mapped, MAP_FAILED);
  const std::string_view view(static_cast<const char*>(mapped), old_bytes.size());

  // A new client process (no memory of the last copy) with another build under the same name.
  WriteFile(src / "libcuobjclient.so.1.2.0.68", new_bytes);
  Installer next(tmp / "install");
  auto updated = next.SyncLibraries(src.string());
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ(ReadFile(lib), new_bytes);
  EXPECT_EQ(view, old_bytes);

  fs::remove(src / "libcuobjclient.so.1.2.0.68");
  WriteFile(src / "libcuobjclient.so.2.0.0.109", new_bytes);
  ASSERT_TRUE(next.SyncLibraries(src.string()).ok());
  EXPECT_FALSE(fs::exists(lib));
  EXPECT_EQ(view, old_bytes);
  ::munmap(mapped, old_bytes.size());
}

TEST(Installer, MissingLibraryDirectoryIsSkipped) {
  TempDir tmp;
  Installer installer(tmp / "install");
  auto changes = installer.SyncLibraries(tmp / "absent");
  ASSERT_TRUE(changes.ok());
  EXPECT_TRUE(changes->empty());
  EXPECT_FALSE(fs::exists(tmp.path() / "install/lib"));
}

TEST(Installer, UninstallRemovesEverythingItInstalledAndOnlyThat) {
  TempDir tmp;
  const fs::path src = tmp.path() / "cuobjclient";
  fs::create_directories(src);
  fs::copy_file(FakeClientLibrary(), src / "libcuobjclient.so.1.2.0.68");
  {
    Installer installer(tmp / "install");
    ASSERT_TRUE(installer.Prepare().ok());
    ASSERT_TRUE(installer.WriteFiles(RenderInstallFiles(ClientConfig{})).ok());
    ASSERT_TRUE(installer.SyncLibraries(src.string()).ok());
    WriteFile(tmp.path() / "install/log/cufile.log", "app log\n");
    WriteFile(tmp.path() / "install/client.env.tmp.999", "an earlier version's interrupted write");
    WriteFile(tmp.path() / "install/.rdmastack-tmp-00112233deadbeef", "an interrupted write");
  }
  // A new process (the restarted pod) removes what an earlier one installed.
  Installer installer(tmp / "install");
  const std::vector<std::string> removed = installer.Uninstall();
  const std::string dir = tmp / "install";
  EXPECT_EQ(removed,
            (std::vector<std::string>{dir + "/cufile.json", dir + "/cuobj.json",
                                      dir + "/endpoints.json", dir + "/client.env", dir + "/lib/",
                                      dir + "/log/", dir + "/.rdmastack-tmp-00112233deadbeef",
                                      dir + "/client.env.tmp.999", dir + "/"}));
  EXPECT_FALSE(fs::exists(dir));

  // Something that is not ours stays, and so does the directory.
  Installer again(tmp / "install");
  ASSERT_TRUE(again.Prepare().ok());
  ASSERT_TRUE(again.WriteFiles({{"client.env", "A=1\n"}}).ok());
  WriteFile(tmp.path() / "install/notes.txt", "the admin's\n");
  again.Uninstall();
  EXPECT_FALSE(fs::exists(tmp.path() / "install/client.env"));
  EXPECT_FALSE(fs::exists(tmp.path() / "install/log"));
  EXPECT_EQ(ReadFile(tmp.path() / "install/notes.txt"), "the admin's\n");
}

}  // namespace
}  // namespace rdmastack::client
