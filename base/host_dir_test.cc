#include "base/host_dir.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

namespace rdmastack {
namespace {

namespace fs = std::filesystem;

// A fresh directory with `inside` (the HostDir under test) and `outside` beside it: whatever a
// refused name does, `outside` must stay as it was.
class HostDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "host_dir_test.XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
    fs::create_directories(root_ / "inside");
    fs::create_directories(root_ / "outside");
    Write(root_ / "outside" / "victim", "host file\n");
    auto dir = HostDir::Open((root_ / "inside").string(), false);
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    dir_.emplace(std::move(*dir));
  }
  void TearDown() override { fs::remove_all(root_); }

  static void Write(const fs::path& p, const std::string& content) {
    std::ofstream(p, std::ios::binary) << content;
  }
  static std::string Read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // Every entry below root_, recursively, as "relative path".
  std::set<std::string> Tree() const {
    std::set<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(root_)) {
      out.insert(fs::relative(e.path(), root_).string());
    }
    return out;
  }
  std::set<std::string> Inside() const {
    std::set<std::string> out;
    for (const auto& e : fs::directory_iterator(root_ / "inside")) {
      out.insert(e.path().filename().string());
    }
    return out;
  }

  fs::path root_;
  std::optional<HostDir> dir_;
};

// Every form of name that is not one plain component.
std::vector<std::string> RefusedNames() {
  return {"",
          ".",
          "..",
          "a/b",
          "/abs",
          "../outside/victim",
          "x/..",
          "lib/",
          std::string("a\0b", 3),
          std::string(1, '\0'),
          "line\nbreak",
          "tab\there",
          "esc\x1b[31m",
          "del\x7f",
          std::string(kMaxPlainNameBytes + 1, 'a'),
          std::string(300, '/'),
          std::string(kHostTempPrefix) + "0123456789abcdef"};
}

TEST(CheckPlainName, RefusesEveryFormThatIsNotOnePlainComponent) {
  for (const std::string& name : RefusedNames()) {
    Status s = CheckPlainName(name);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << ShowName(name);
    EXPECT_NE(s.message().find("not a plain file name"), std::string::npos) << s.message();
  }
  EXPECT_NE(CheckPlainName("a/b").message().find("'a/b'"), std::string::npos);
  EXPECT_NE(CheckPlainName("x\ny").message().find("x\\x0ay"), std::string::npos)
      << "the message shows the name, escaped: " << CheckPlainName("x\ny").message();
}

TEST(CheckPlainName, AcceptsPlainNames) {
  for (const std::string& name :
       {std::string("libcuobjclient.so.1.2.0.68"), std::string(".hidden"), std::string("..a"),
        std::string("a..b"), std::string("caf\xc3\xa9"), std::string(kMaxPlainNameBytes, 'a'),
        std::string(".rdmastack-other")}) {
    EXPECT_TRUE(CheckPlainName(name).ok()) << ShowName(name);
  }
}

TEST(ShowName, EscapesAndBounds) {
  EXPECT_EQ(ShowName("a\nb\\c'"), "a\\x0ab\\x5cc\\x27");
  EXPECT_EQ(ShowName(std::string("\0", 1)), "\\x00");
  const std::string shown = ShowName(std::string(1000, 'x'));
  EXPECT_EQ(shown, std::string(64, 'x') + "...(1000 bytes)");
}

TEST(DefangedMode, KeepsOnlyReadAndExecute) {
  EXPECT_EQ(DefangedMode(04755), 0755u);
  EXPECT_EQ(DefangedMode(02711), 0755u);
  EXPECT_EQ(DefangedMode(01777), 0755u);
  EXPECT_EQ(DefangedMode(0666), 0644u);
  EXPECT_EQ(DefangedMode(06666), 0644u);
  EXPECT_EQ(DefangedMode(0100), 0755u);
  EXPECT_EQ(DefangedMode(0), 0644u);
}

TEST_F(HostDirTest, EveryCallRefusesEveryNonPlainNameAndChangesNothing) {
  const std::set<std::string> before = Tree();
  const int source = ::open((root_ / "outside" / "victim").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(source, 0);
  for (const std::string& bad : RefusedNames()) {
    const std::string shown = ShowName(bad);
    EXPECT_EQ(dir_->WriteFile(bad, "x").code(), StatusCode::kInvalidArgument) << shown;
    EXPECT_EQ(dir_->CopyFile(bad, source, 10, 0644).code(), StatusCode::kInvalidArgument) << shown;
    EXPECT_EQ(dir_->Symlink(bad, "victim").code(), StatusCode::kInvalidArgument) << shown;
    EXPECT_EQ(dir_->Symlink("link", bad).code(), StatusCode::kInvalidArgument) << shown;
    EXPECT_EQ(dir_->Remove(bad).status().code(), StatusCode::kInvalidArgument) << shown;
    EXPECT_EQ(dir_->RemoveTree(bad).status().code(), StatusCode::kInvalidArgument) << shown;
    EXPECT_EQ(dir_->RemoveDir(bad).status().code(), StatusCode::kInvalidArgument) << shown;
    EXPECT_EQ(dir_->OpenChild(bad, true).status().code(), StatusCode::kInvalidArgument) << shown;
    EXPECT_EQ(dir_->Lstat(bad).status().code(), StatusCode::kInvalidArgument) << shown;
    EXPECT_EQ(dir_->ReadLink(bad).status().code(), StatusCode::kInvalidArgument) << shown;
    EXPECT_EQ(dir_->OpenRegular(bad).status().code(), StatusCode::kInvalidArgument) << shown;
    EXPECT_EQ(dir_->ReadFile(bad, 100).status().code(), StatusCode::kInvalidArgument) << shown;
  }
  ::close(source);
  EXPECT_EQ(Tree(), before);
  EXPECT_EQ(Read(root_ / "outside" / "victim"), "host file\n");
}

TEST_F(HostDirTest, OpenWalksWithoutFollowingLinksAndRefusesDotDot) {
  fs::create_symlink(root_ / "outside", root_ / "inside" / "away");
  auto via_link = HostDir::Open((root_ / "inside" / "away").string(), true);
  EXPECT_EQ(via_link.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(via_link.status().message().find("symbolic link"), std::string::npos);
  auto dotdot = HostDir::Open((root_ / "inside" / ".." / "outside").string(), false);
  EXPECT_EQ(dotdot.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(HostDir::Open("relative/path", true).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(HostDir::Open((root_ / "inside" / "missing").string(), false).status().code(),
            StatusCode::kNotFound);
  // create makes every missing component.
  auto made = HostDir::Open((root_ / "inside" / "a" / "b" / "c").string(), true);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  EXPECT_TRUE(fs::is_directory(root_ / "inside" / "a" / "b" / "c"));
  EXPECT_EQ(made->path(), (root_ / "inside" / "a" / "b" / "c").string());
  // A child that is a link is not opened, nor created through.
  EXPECT_EQ(dir_->OpenChild("away", true).status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(fs::directory_iterator(root_ / "outside")->path().filename(), "victim");
}

// A probe of the file system leaves nothing a reader could see, while it is open or after.
TEST_F(HostDirTest, AScratchFileIsWritableAndNeverHasAName) {
  {
    StatusOr<UniqueFd> fd = dir_->OpenScratchFile();
    ASSERT_TRUE(fd.ok()) << fd.status().ToString();
    EXPECT_EQ(::write(fd->get(), "probe", 5), 5);
    struct stat st {};
    ASSERT_EQ(::fstat(fd->get(), &st), 0);
    EXPECT_TRUE(S_ISREG(st.st_mode));
    EXPECT_EQ(st.st_nlink, 0u) << "unlinked from the start";
    EXPECT_TRUE(Inside().empty());
  }
  EXPECT_TRUE(Inside().empty());
}

TEST_F(HostDirTest, WriteFileReplacesALinkInsteadOfWritingThroughIt) {
  fs::create_symlink(root_ / "outside" / "victim", root_ / "inside" / "cufile.json");
  ASSERT_TRUE(dir_->WriteFile("cufile.json", "{}\n", 0644).ok());
  EXPECT_EQ(Read(root_ / "outside" / "victim"), "host file\n");
  EXPECT_FALSE(fs::is_symlink(root_ / "inside" / "cufile.json"));
  EXPECT_EQ(Read(root_ / "inside" / "cufile.json"), "{}\n");
  EXPECT_EQ(fs::status(root_ / "inside" / "cufile.json").permissions(),
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                fs::perms::others_read);
  EXPECT_EQ(Inside(), std::set<std::string>{"cufile.json"}) << "no temporary file is left";
  // Rewriting keeps one file; a directory in the way is an error, not a write into it.
  ASSERT_TRUE(dir_->WriteFile("cufile.json", "{\"a\":1}\n").ok());
  EXPECT_EQ(Read(root_ / "inside" / "cufile.json"), "{\"a\":1}\n");
  fs::create_directory(root_ / "inside" / "dir");
  EXPECT_FALSE(dir_->WriteFile("dir", "x").ok());
  EXPECT_TRUE(fs::is_empty(root_ / "inside" / "dir"));
  EXPECT_EQ(Inside(), (std::set<std::string>{"cufile.json", "dir"}));
}

TEST_F(HostDirTest, CopyFileWritesExactlyTheCheckedSizeWithTheGivenMode) {
  Write(root_ / "outside" / "lib", std::string(100000, 'L'));
  ::chmod((root_ / "outside" / "lib").c_str(), 04777);
  const int source = ::open((root_ / "outside" / "lib").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(source, 0);
  ASSERT_TRUE(dir_->CopyFile("lib.so", source, 100000, DefangedMode(04777)).ok());
  EXPECT_EQ(Read(root_ / "inside" / "lib.so"), std::string(100000, 'L'));
  struct stat st {};
  ASSERT_EQ(::stat((root_ / "inside" / "lib.so").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  // A source that holds more than was checked is refused, not cut; one that holds less too.
  Status grew = dir_->CopyFile("grew.so", source, 99999, 0644);
  EXPECT_EQ(grew.code(), StatusCode::kFailedPrecondition) << grew.ToString();
  Status shrank = dir_->CopyFile("shrank.so", source, 100001, 0644);
  EXPECT_EQ(shrank.code(), StatusCode::kDataLoss) << shrank.ToString();
  ::close(source);
  EXPECT_EQ(Inside(), std::set<std::string>{"lib.so"});
}

TEST_F(HostDirTest, SymlinkNamesOnlyASiblingAndReplacesAtomically) {
  ASSERT_TRUE(dir_->WriteFile("libx.so.1.2", "elf").ok());
  ASSERT_TRUE(dir_->Symlink("libx.so.1", "libx.so.1.2").ok());
  EXPECT_EQ(*dir_->ReadLink("libx.so.1"), "libx.so.1.2");
  ASSERT_TRUE(dir_->Symlink("libx.so.1", "libx.so.1.3").ok());
  EXPECT_EQ(*dir_->ReadLink("libx.so.1"), "libx.so.1.3");
  EXPECT_FALSE(dir_->Symlink("escape", "../outside/victim").ok());
  EXPECT_FALSE(dir_->Symlink("escape", (root_ / "outside" / "victim").string()).ok());
  EXPECT_EQ(Inside(), (std::set<std::string>{"libx.so.1", "libx.so.1.2"}));
}

TEST_F(HostDirTest, OpenRegularOpensNothingButRegularFiles) {
  ASSERT_EQ(::mkfifo((root_ / "inside" / "fifo").c_str(), 0644), 0);
  fs::create_symlink(root_ / "outside" / "victim", root_ / "inside" / "link");
  fs::create_directory(root_ / "inside" / "dir");
  Write(root_ / "inside" / "file", "abc");
  for (const char* n : {"fifo", "link", "dir"}) {
    auto f = dir_->OpenRegular(n);  // a FIFO would block here if it were opened
    EXPECT_EQ(f.status().code(), StatusCode::kFailedPrecondition) << n;
    EXPECT_EQ(dir_->ReadFile(n, 10).status().code(), StatusCode::kFailedPrecondition) << n;
  }
  auto f = dir_->OpenRegular("file");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->st.st_size, 3);
  EXPECT_EQ(*dir_->ReadFile("file", 3), "abc");
  EXPECT_EQ(dir_->ReadFile("file", 2).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(dir_->Lstat("missing").status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(S_ISLNK(dir_->Lstat("link")->st_mode));
}

TEST_F(HostDirTest, RemoveTreeRemovesLinksNotWhatTheyName) {
  fs::create_directories(root_ / "inside" / "lib" / "sub");
  fs::create_symlink(root_ / "outside", root_ / "inside" / "lib" / "to-outside");
  fs::create_symlink(root_ / "outside" / "victim", root_ / "inside" / "lib" / "sub" / "v");
  Write(root_ / "inside" / "lib" / "sub" / "weird\nname", "x");
  EXPECT_TRUE(*dir_->RemoveTree("lib"));
  EXPECT_FALSE(*dir_->RemoveTree("lib"));
  EXPECT_FALSE(fs::exists(root_ / "inside" / "lib"));
  EXPECT_EQ(Read(root_ / "outside" / "victim"), "host file\n");
  // Remove: a file or a link, never a directory; false when absent.
  fs::create_symlink(root_ / "outside", root_ / "inside" / "dirlink");
  EXPECT_TRUE(*dir_->Remove("dirlink"));
  EXPECT_TRUE(fs::exists(root_ / "outside" / "victim"));
  EXPECT_FALSE(*dir_->Remove("dirlink"));
  fs::create_directory(root_ / "inside" / "d");
  EXPECT_FALSE(dir_->Remove("d").ok());
  // RemoveDir: only an empty directory.
  Write(root_ / "inside" / "d" / "f", "x");
  EXPECT_EQ(dir_->RemoveDir("d").status().code(), StatusCode::kFailedPrecondition);
  fs::remove(root_ / "inside" / "d" / "f");
  EXPECT_TRUE(*dir_->RemoveDir("d"));
  EXPECT_FALSE(*dir_->RemoveDir("d"));
}

TEST_F(HostDirTest, TemporaryFilesAreTheWritersOwnAndCanBeSweptAway) {
  Write(root_ / "inside" / (std::string(kHostTempPrefix) + "deadbeefdeadbeef"), "left over");
  Write(root_ / "inside" / "cufile.json.tmp.1", "an older writer's, not ours");
  ASSERT_TRUE(dir_->WriteFile("a", "1").ok());
  EXPECT_EQ(*dir_->RemoveTemporaryFiles(),
            std::vector<std::string>{std::string(kHostTempPrefix) + "deadbeefdeadbeef"});
  EXPECT_EQ(Inside(), (std::set<std::string>{"a", "cufile.json.tmp.1"}));
}

TEST_F(HostDirTest, ChargedBytesCountsSizeOrBlocksWhicheverIsMore) {
  // Sparse: 1 GiB long, almost nothing allocated.
  const fs::path sparse = root_ / "inside" / "sparse";
  int fd = ::open(sparse.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, 1 << 30), 0);
  ::close(fd);
  struct stat st {};
  ASSERT_EQ(::stat(sparse.c_str(), &st), 0);
  EXPECT_EQ(ChargedBytes(st), uint64_t{1} << 30);
  // Preallocated past its end: 1 byte long, 8 MiB allocated.
  const fs::path big = root_ / "inside" / "prealloc";
  fd = ::open(big.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "x", 1), 1);
  if (::fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 8 << 20) != 0) {
    ::close(fd);
    GTEST_SKIP() << "this file system cannot preallocate";
  }
  ::close(fd);
  ASSERT_EQ(::stat(big.c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 1);
  EXPECT_GE(ChargedBytes(st), uint64_t{8} << 20);
}

}  // namespace
}  // namespace rdmastack
