// The node programs (the client data plane, the gateway launcher, the node agent) run privileged
// with host paths mounted, and read what tenants put in images. Every write they make goes
// through one primitive, base/host_dir.h (a directory descriptor, one plain name per call, *at()
// with O_NOFOLLOW): this test fails when any other product source those programs are built from
// creates, renames, links, removes or changes a file by another way.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "tests/harness/source_scan.h"

namespace rdmastack {
namespace {

using testing::CodeOnly;
using testing::Findings;

// The programs' own folders and every library folder they may include (tests/layering_test.cc).
const std::vector<std::string> kScanned = {"agents/client",
                                           "gateway/launcher",
                                           "agents/node-agent",
                                           "cmd/rdmastack-client",
                                           "cmd/rdmastack-gateway",
                                           "cmd/rdmastack-agent",
                                           "base",
                                           "node",
                                           "lib"};
// The primitive itself.
const std::vector<std::string> kAllowed = {"base/host_dir.cc"};

// Calls and types that write to a file system, whatever the spelling (std::filesystem, POSIX,
// stdio, iostreams).
const std::regex& Forbidden() {
  static const std::regex re(
      R"(\bO_(CREAT|WRONLY|RDWR|TRUNC|APPEND)\b|\b(o|)fstream\b|\bfopen\b|\bfreopen\b|)"
      R"(\b(rename|renameat2?|unlink|unlinkat|rmdir|mkdir|mkdirat|symlink|symlinkat|link|)"
      R"(linkat|chmod|fchmod|fchmodat|chown|fchown|lchown|fchownat|truncate|ftruncate|mkfifo|)"
      R"(mkfifoat|mknod|mknodat|utimensat|futimens|utimes|copy_file_range|sendfile|)"
      R"(fallocate|posix_fallocate|remove)\s*\(|)"
      R"(\b(create_directory|create_directories|create_symlink|create_directory_symlink|)"
      R"(create_hard_link|copy|copy_file|copy_symlink|remove_all|resize_file|permissions|)"
      R"(last_write_time)\s*\()");
  return re;
}

TEST(HostWrites, TheNodeProgramsWriteOnlyThroughHostDir) {
  const testing::ScanResult scan = testing::ScanProductSources(kScanned, kAllowed, Forbidden());
  EXPECT_GT(scan.scanned, 50u) << "the scan found almost nothing; is RDMASTACK_SOURCE_DIR right?";
  std::string all;
  for (const std::string& f : scan.findings) all += "\n  " + f;
  EXPECT_TRUE(scan.findings.empty())
      << "write to the host through base/host_dir.h (HostDir) or base/atomic_file.h, "
         "nothing else:"
      << all;
}

// The scan finds each form it is there for, and not the words in comments or messages.
TEST(HostWrites, TheScanRecognisesEveryWayToWrite) {
  for (const char* line : {"std::ofstream out(path);",
                           "int fd = ::open(p.c_str(), O_WRONLY | O_CREAT, 0644);",
                           "::open(p, O_RDWR);",
                           "FILE* f = fopen(p, \"w\");",
                           "std::rename(a, b);",
                           "::renameat2(a, b, c, d, 0);",
                           "unlink(p);",
                           "::unlinkat(d, n, 0);",
                           "::rmdir(p);",
                           "::mkdir(p, 0755);",
                           "::symlink(t, p);",
                           "::link(a, b);",
                           "::chmod(p, 04755);",
                           "::chown(p, 0, 0);",
                           "::truncate(p, 0);",
                           "::mkfifo(p, 0600);",
                           "fs::create_directories(d, ec);",
                           "fs::copy_file(a, b, ec);",
                           "fs::copy(a, b);",
                           "fs::remove_all(d, ec);",
                           "fs::remove(p, ec);",
                           "fs::create_symlink(t, p);",
                           "fs::permissions(p, perms);",
                           "fs::resize_file(p, 0);",
                           "std::fstream io(p);",
                           "::fallocate(fd, 0, 0, n);",
                           "sendfile(out, in, nullptr, n);"}) {
    EXPECT_FALSE(Findings("x.cc", CodeOnly(line), Forbidden()).empty()) << line;
  }
  for (const char* line :
       {"// std::ofstream in a comment, rename( too", "msg = \"cannot rename over x\";",
        "/* unlink( */ int a = 0;", "dir.WriteFile(name, content);", "lib.RemoveTree(name);",
        "::openat(fd, n, O_RDONLY | O_NOFOLLOW);", "int renamed = 0;", "unlinked++;",
        "#include <fstream>", "std::ifstream in(path);"}) {
    EXPECT_TRUE(Findings("x.cc", CodeOnly(line), Forbidden()).empty()) << line;
  }
}

}  // namespace
}  // namespace rdmastack
