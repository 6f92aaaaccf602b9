// Docs are part of the product: every reason the node agent can report has a row in
// docs/troubleshooting.md. Reasons are read from the check sources, so a new reason without docs
// fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>

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

// Quoted CamelCase literals in `arg`, e.g. both names of `cond ? "RoceMtuLow" : "IbMtuLow"`.
void AddQuotedNames(std::string_view arg, std::set<std::string>* out) {
  for (size_t open = arg.find('"'); open != std::string_view::npos;
       open = arg.find('"', open + 1)) {
    const size_t close = arg.find('"', open + 1);
    if (close == std::string_view::npos) return;
    std::string_view name = arg.substr(open + 1, close - open - 1);
    const bool camel = !name.empty() && std::isupper(static_cast<unsigned char>(name[0])) &&
                       std::all_of(name.begin(), name.end(), [](char c) {
                         return std::isalnum(static_cast<unsigned char>(c));
                       });
    if (camel) out->insert(std::string(name));
    open = close;
  }
}

TEST(DocsTest, EveryAgentReasonIsDocumented) {
  // The reason is the second argument of Fail(id, reason, ...), Warn(...) and Unknown(...).
  std::set<std::string> reasons;
  for (const auto& entry :
       std::filesystem::directory_iterator(SourceDir() + "/agents/node-agent/checks")) {
    if (entry.path().extension() != ".cc") continue;
    const std::string text = Slurp(entry.path());
    for (std::string_view call : {"Fail(", "Warn(", "Unknown("}) {
      for (size_t at = text.find(call); at != std::string::npos; at = text.find(call, at + 1)) {
        if (at > 0 &&
            (std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_')) {
          continue;
        }
        const size_t first_comma = text.find(',', at);
        const size_t second_comma = text.find(',', first_comma + 1);
        if (first_comma == std::string::npos || second_comma == std::string::npos) continue;
        AddQuotedNames(
            std::string_view(text).substr(first_comma + 1, second_comma - first_comma - 1),
            &reasons);
      }
    }
  }
  ASSERT_GT(reasons.size(), 20u)
      << "the reason scanner found too few reasons; did the check API change?";
  const std::string docs = Slurp(SourceDir() + "/docs/troubleshooting.md");
  for (const auto& reason : reasons) {
    EXPECT_NE(docs.find("`" + reason + "`"), std::string::npos)
        << "reason " << reason << " is not in docs/troubleshooting.md";
  }
}

// Every ClientProfile condition reason and per-node reason the operator writes has a row in
// docs/troubleshooting.md: Ineligible("X", ...) / Refused("X", ...) in the eligibility function,
// `..._reason = "X"` and conditions.Make(type, status, "X", ...) in the status function.
TEST(DocsTest, EveryClientProfileReasonIsDocumented) {
  std::set<std::string> reasons;
  for (const char* file : {"eligibility.cc", "profile_status.cc", "clientprofile_reconciler.cc"}) {
    const std::string text = Slurp(SourceDir() + "/controllers/clientprofile/" + file);
    ASSERT_FALSE(text.empty()) << file;
    for (std::string_view call : {"Ineligible(\"", "Refused(\"", "_reason = \""}) {
      for (size_t at = text.find(call); at != std::string::npos; at = text.find(call, at + 1)) {
        const size_t open = at + call.size() - 1;
        AddQuotedNames(std::string_view(text).substr(open, text.find('"', open + 1) - open + 1),
                       &reasons);
      }
    }
    for (size_t at = text.find("ConditionStatus::k"); at != std::string::npos;
         at = text.find("ConditionStatus::k", at + 1)) {
      const size_t first_comma = text.find(',', at);
      const size_t second_comma = text.find(',', first_comma + 1);
      if (first_comma == std::string::npos || second_comma == std::string::npos) continue;
      AddQuotedNames(std::string_view(text).substr(first_comma + 1, second_comma - first_comma - 1),
                     &reasons);
    }
  }
  ASSERT_GT(reasons.size(), 20u) << "the reason scanner found too few reasons";
  const std::string docs = Slurp(SourceDir() + "/docs/troubleshooting.md");
  for (const auto& reason : reasons) {
    EXPECT_NE(docs.find("`" + reason + "`"), std::string::npos)
        << "ClientProfile reason " << reason << " is not in docs/troubleshooting.md";
  }
}

}  // namespace
}  // namespace rdmastack
