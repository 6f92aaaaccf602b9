#include "tests/harness/node-runtime/atomic_writer.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "tests/harness/node-runtime/test_objects.h"

namespace rdmastack::sim {
namespace {
namespace fs = std::filesystem;

class AtomicWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("atomic-writer-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(AtomicWriterTest, WritesFilesBehindDataLinkWithModes) {
  AtomicDirWriter w(dir_.string());
  auto changed = w.Write({{"ca.crt", {"CA", 0644}}, {"sub/token", {"T", 0600}}});
  ASSERT_TRUE(changed.ok()) << changed.status().ToString();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(ReadTestFile(dir_ / "ca.crt"), "CA");
  EXPECT_EQ(ReadTestFile(dir_ / "sub" / "token"), "T");
  EXPECT_TRUE(fs::is_symlink(dir_ / "..data"));
  EXPECT_EQ(fs::read_symlink(dir_ / "ca.crt"), fs::path("..data/ca.crt"));
  struct stat st {};
  ASSERT_EQ(::stat((dir_ / "sub" / "token").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(AtomicWriterTest, UpdateSwapsContentDropsGoneKeysAndOldVersion) {
  AtomicDirWriter w(dir_.string());
  ASSERT_TRUE(w.Write({{"a", {"1", 0644}}, {"b", {"2", 0644}}}).ok());
  const fs::path first = fs::read_symlink(dir_ / "..data");
  auto same = w.Write({{"a", {"1", 0644}}, {"b", {"2", 0644}}});
  ASSERT_TRUE(same.ok());
  EXPECT_FALSE(*same);
  auto changed = w.Write({{"a", {"one", 0644}}});
  ASSERT_TRUE(changed.ok());
  EXPECT_TRUE(*changed);
  EXPECT_EQ(ReadTestFile(dir_ / "a"), "one");
  EXPECT_FALSE(fs::exists(dir_ / "b"));
  EXPECT_FALSE(fs::exists(dir_ / first));
}

TEST_F(AtomicWriterTest, RefusesPathsThatLeaveTheVolume) {
  AtomicDirWriter w(dir_.string());
  for (const char* bad : {"../x", "/abs", "a//b", "..data", "a/../b", ""}) {
    auto r = w.Write({{bad, {"x", 0644}}});
    EXPECT_FALSE(r.ok()) << bad;
  }
  EXPECT_TRUE(CheckRelativePath("a/b.c").ok());
}

}  // namespace
}  // namespace rdmastack::sim
