// Docs are part of the product: every reason the node agent can report has a row in
// docs/troubleshooting.md. Reasons are read from the check sources, so a new reason without docs
// fails here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace rdmastack {
namespace {

std::string SourceDir() {
  const char* dir = std::getenv("RDMASTACK_SOURCE_DIR");
  return dir != nullptr ? dir : ".";
}

std::string Slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(DocsTest, EveryAgentReasonIsDocumented) {
  // Fail(id, "Reason", ...), Warn(...), Unknown(...), also with the reason chosen by a ?: between
  // two literals.
  const std::regex call(R"re((?:Fail|Warn|Unknown)\(\s*[a-z_."]+,\s*([^,]+),)re");
  const std::regex literal(R"re("([A-Z][A-Za-z0-9]+)")re");
  std::set<std::string> reasons;
  for (const auto& entry :
       std::filesystem::directory_iterator(SourceDir() + "/agents/node-agent/checks")) {
    if (entry.path().extension() != ".cc") continue;
    const std::string text = Slurp(entry.path());
    for (std::sregex_iterator it(text.begin(), text.end(), call), end; it != end; ++it) {
      const std::string arg = (*it)[1];
      for (std::sregex_iterator l(arg.begin(), arg.end(), literal); l != end; ++l) {
        reasons.insert((*l)[1]);
      }
    }
  }
  ASSERT_GT(reasons.size(), 20u) << "the reason scanner found too few reasons; did the check API change?";
  const std::string docs = Slurp(SourceDir() + "/docs/troubleshooting.md");
  for (const auto& reason : reasons) {
    EXPECT_NE(docs.find("`" + reason + "`"), std::string::npos)
        << "reason " << reason << " is not in docs/troubleshooting.md";
  }
}

}  // namespace
}  // namespace rdmastack
