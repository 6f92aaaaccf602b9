// The must-gather archive writer, read back by the system's tar: the bytes are a real .tar.gz,
// not just something our own reader accepts.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/kubectl-rdmastack/must_gather/tar_gz.h"

namespace rdmastack::plugin {
namespace {

namespace fs = std::filesystem;

struct Shell {
  int rc;
  std::string out;
};
Shell Sh(const std::string& command) {
  Shell r{0, ""};
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof(buf), p)) > 0;) r.out.append(buf, n);
  r.rc = ::pclose(p);
  return r;
}

class ArchiveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tar-gz-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& bytes) {
    const std::string path = (dir_ / "a.tar.gz").string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  std::string Read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  fs::path dir_;
};

TEST_F(ArchiveTest, TarListsAndExtractsEveryFileByteForByte) {
  std::string binary;
  for (int i = 0; i < 3000; ++i) binary += static_cast<char>(i * 7 % 256);
  // 155 + '/' + 100: the longest path ustar holds, split at the last fitting '/'.
  const std::string long_path = "root/" + std::string(140, 'p') + "/" + std::string(99, 'n');
  const std::vector<ArchiveEntry> entries = {
      {"root/SUMMARY.md", "# hello\n"},
      {"root/empty.log", ""},
      {"root/logs/ns/pod/exactly-512.log", std::string(512, 'x')},
      {"root/bin/data", binary},
      {long_path, "long\n"},
  };
  StatusOr<std::string> archive = WriteTarGz(entries, 1796472000);  // 2026-12-05T12:00:00Z
  ASSERT_TRUE(archive.ok()) << archive.status().ToString();
  const std::string path = Write(*archive);

  Shell list = Sh("tar -tzf " + path);
  ASSERT_EQ(list.rc, 0) << list.out;
  std::string want;
  for (const ArchiveEntry& e : entries) want += e.path + "\n";
  EXPECT_EQ(list.out, want);

  Shell verbose = Sh("TZ=UTC tar -tvzf " + path + " root/SUMMARY.md");
  EXPECT_NE(verbose.out.find("-rw-------"), std::string::npos) << verbose.out;
  EXPECT_NE(verbose.out.find("2026-12-05 12:00"), std::string::npos) << verbose.out;

  Shell extract = Sh("tar -xzf " + path + " -C " + dir_.string());
  ASSERT_EQ(extract.rc, 0) << extract.out;
  for (const ArchiveEntry& e : entries) EXPECT_EQ(Read(dir_ / e.path), e.content) << e.path;
}

TEST_F(ArchiveTest, SameEntriesGiveTheSameBytes) {
  const std::vector<ArchiveEntry> entries = {{"r/a", "1"}, {"r/b", "2"}};
  EXPECT_EQ(*WriteTarGz(entries, 5), *WriteTarGz(entries, 5));
}

TEST_F(ArchiveTest, RefusesPathsUstarCannotHoldOrThatClimbOut) {
  for (const std::string& bad :
       {std::string(""), std::string("/etc/passwd"), std::string("r/../x"), std::string("r//x"),
        std::string(101, 'n'), "r/" + std::string(101, 'n'), std::string(160, 'p') + "/n"}) {
    StatusOr<std::string> archive = WriteTar({{bad, "x"}}, 0);
    EXPECT_FALSE(archive.ok()) << bad;
    EXPECT_EQ(archive.status().code(), StatusCode::kInvalidArgument) << bad;
  }
}

TEST_F(ArchiveTest, GunzipReadsGzipAndRefusesTheRest) {
  const std::string text(100000, 'a');
  StatusOr<std::string> gz = Gzip(text);
  ASSERT_TRUE(gz.ok());
  EXPECT_LT(gz->size(), 1000u);
  EXPECT_EQ(*Gunzip(*gz), text);
  EXPECT_FALSE(Gunzip("not gzip").ok());
  EXPECT_FALSE(Gunzip(gz->substr(0, gz->size() / 2)).ok());
  EXPECT_EQ(Gunzip(*gz, 1000).status().code(), StatusCode::kResourceExhausted);
  // The system's gzip reads ours.
  const std::string path = Write(*gz);
  Shell r = Sh("gzip -dc < " + path + " | wc -c");
  EXPECT_EQ(r.out, "100000\n");
}

}  // namespace
}  // namespace rdmastack::plugin
