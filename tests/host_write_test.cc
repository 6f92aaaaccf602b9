// The node programs (the client data plane, the gateway launcher, the node agent) run privileged
// with host paths mounted, and read what tenants put in images. Every write they make goes
// through one primitive, base/host_dir.h (a directory descriptor, one plain name per call, *at()
// with O_NOFOLLOW): this test fails when any other product source those programs are built from
// creates, renames, links, removes or changes a file by another way.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/harness/cluster_env.h"

namespace rdmastack {
namespace {

namespace fs = std::filesystem;

using testing::SourceDir;

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

// The code of a source without comments and string literals (messages mention these words).
std::string CodeOnly(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 8, "#include") == 0) {  // <fstream> is no write
      while (i < text.size() && text[i] != '\n') ++i;
      out.push_back('\n');
    } else if (text.compare(i, 2, "//") == 0) {
      while (i < text.size() && text[i] != '\n') ++i;
      out.push_back('\n');
    } else if (text.compare(i, 2, "/*") == 0) {
      const size_t end = text.find("*/", i + 2);
      for (size_t j = i; j < std::min(end, text.size()); ++j) {
        if (text[j] == '\n') out.push_back('\n');
      }
      i = end == std::string::npos ? text.size() : end + 1;
    } else if (text.compare(i, 2, "R\"") == 0) {
      const size_t open = text.find('(', i);
      const std::string close = ")" + text.substr(i + 2, open - i - 2) + "\"";
      const size_t end = text.find(close, open);
      for (size_t j = i; j < std::min(end, text.size()); ++j) {
        if (text[j] == '\n') out.push_back('\n');
      }
      out += "\"\"";
      i = end == std::string::npos ? text.size() : end + close.size() - 1;
    } else if (text[i] == '"' || text[i] == '\'') {
      const char q = text[i];
      for (++i; i < text.size() && text[i] != q; ++i) {
        if (text[i] == '\\') ++i;
      }
      out += "\"\"";
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

bool IsProductSource(const fs::path& rel) {
  const std::string s = rel.generic_string();
  const std::string name = rel.filename().string();
  if (rel.extension() != ".cc" && rel.extension() != ".h") return false;
  if (s.find("/tests/") != std::string::npos || s.find("/testing/") != std::string::npos ||
      s.find("/fuzz/") != std::string::npos)
    return false;
  return name.find("_test.") == std::string::npos && name.find("_fuzz") == std::string::npos &&
         name != "test_paths.h";
}

// "file:line: text" for each forbidden call in `code` (already CodeOnly).
std::vector<std::string> Findings(const std::string& file, const std::string& code) {
  std::vector<std::string> out;
  std::istringstream lines(code);
  std::string line;
  for (int n = 1; std::getline(lines, line); ++n) {
    std::smatch m;
    if (std::regex_search(line, m, Forbidden())) {
      out.push_back(file + ":" + std::to_string(n) + ": " + m.str(0));
    }
  }
  return out;
}

TEST(HostWrites, TheNodeProgramsWriteOnlyThroughHostDir) {
  std::vector<std::string> findings;
  size_t scanned = 0;
  for (const std::string& dir : kScanned) {
    const fs::path root = fs::path(SourceDir()) / dir;
    ASSERT_TRUE(fs::is_directory(root)) << root;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      const fs::path rel = fs::relative(e.path(), SourceDir());
      if (!e.is_regular_file() || !IsProductSource(rel)) continue;
      const std::string file = rel.generic_string();
      if (std::find(kAllowed.begin(), kAllowed.end(), file) != kAllowed.end()) continue;
      std::ifstream in(e.path());
      std::stringstream text;
      text << in.rdbuf();
      ++scanned;
      for (std::string& f : Findings(file, CodeOnly(text.str()))) findings.push_back(std::move(f));
    }
  }
  EXPECT_GT(scanned, 50u) << "the scan found almost nothing; is RDMASTACK_SOURCE_DIR right?";
  std::string all;
  for (const std::string& f : findings) all += "\n  " + f;
  EXPECT_TRUE(findings.empty())
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
    EXPECT_FALSE(Findings("x.cc", CodeOnly(line)).empty()) << line;
  }
  for (const char* line :
       {"// std::ofstream in a comment, rename( too", "msg = \"cannot rename over x\";",
        "/* unlink( */ int a = 0;", "dir.WriteFile(name, content);", "lib.RemoveTree(name);",
        "::openat(fd, n, O_RDONLY | O_NOFOLLOW);", "int renamed = 0;", "unlinked++;",
        "#include <fstream>", "std::ifstream in(path);"}) {
    EXPECT_TRUE(Findings("x.cc", CodeOnly(line)).empty()) << line;
  }
}

}  // namespace
}  // namespace rdmastack
