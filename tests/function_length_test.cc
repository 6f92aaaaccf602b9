// No function of controllers/ runs over 80 lines (issue 57): a reconcile step that long does
// several jobs, and its decisions cannot be tested one at a time. Product sources only; tests may
// be as long as their tables need.
//
// The measure is a heuristic that holds for clang-format's layout: a function starts at a line
// that begins in column 0 with a name and an opening parenthesis (not a declaration, a namespace,
// a type or a template line) and ends at the next line that begins with `}`. A lambda or a class
// inside a function counts as part of it.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rdmastack {
namespace {

namespace fs = std::filesystem;

constexpr int kMaxLines = 80;

std::string SourceDir() {
  const char* dir = std::getenv("RDMASTACK_SOURCE_DIR");
  return dir != nullptr ? dir : ".";
}

// Functions allowed over the limit, each with the reason; none today.
const std::set<std::pair<std::string, std::string>>& AllowedLong() {
  static const std::set<std::pair<std::string, std::string>> allowed = {};
  return allowed;
}

struct LongFunction {
  std::string name;  // as the signature spells it: "Planner::Run"
  int line = 0;      // where the signature starts, from 1
  int lines = 0;     // from the signature's first line to the closing brace, both counted
};

bool StartsWithAny(std::string_view line, std::initializer_list<std::string_view> prefixes) {
  for (std::string_view p : prefixes) {
    if (line.starts_with(p)) return true;
  }
  return false;
}

// A line in column 0 that opens a function definition.
bool OpensFunction(const std::string& line) {
  static const std::regex kNameAndParen(R"(^[A-Za-z_].*\()");
  if (!std::regex_search(line, kNameAndParen)) return false;
  if (StartsWithAny(line,
                    {"namespace", "struct", "class", "enum", "using", "template", "static_assert"}))
    return false;
  const size_t last = line.find_last_not_of(" \t\r");
  return last == std::string::npos || line[last] != ';';
}

// The function's name: the qualified identifier before the first `(` outside template brackets.
std::string FunctionName(const std::string& signature) {
  int depth = 0;
  size_t paren = signature.size();
  for (size_t i = 0; i < signature.size() && paren == signature.size(); ++i) {
    if (signature[i] == '<') ++depth;
    if (signature[i] == '>') --depth;
    if (signature[i] == '(' && depth == 0) paren = i;
  }
  if (paren == signature.size()) paren = signature.find('(');  // `operator<(`
  size_t begin = paren;
  while (begin > 0 && (std::isalnum(static_cast<unsigned char>(signature[begin - 1])) ||
                       signature[begin - 1] == '_' || signature[begin - 1] == ':' ||
                       signature[begin - 1] == '~'))
    --begin;
  return signature.substr(begin, paren - begin);
}

std::vector<LongFunction> LongFunctions(std::istream& in) {
  std::vector<LongFunction> out;
  std::string line, signature;
  int start = 0;  // the open function's first line, 0 when none is open
  for (int number = 1; std::getline(in, line); ++number) {
    if (start == 0) {
      if (OpensFunction(line)) {
        start = number;
        signature = line;
      }
      continue;
    }
    if (!line.starts_with("}")) continue;
    if (const int lines = number - start + 1; lines > kMaxLines)
      out.push_back({FunctionName(signature), start, lines});
    start = 0;
  }
  return out;
}

bool IsTest(const std::string& path) {
  return path.find("/tests/") != std::string::npos || path.ends_with("_test.cc");
}

// Every function of controllers/ over the limit: "file:line: name (N lines)" unless allowed; and
// each allowed one seen, so that a stale entry of the allow-list shows.
std::vector<std::string> Violations(const fs::path& root,
                                    std::set<std::pair<std::string, std::string>>* allowed_seen) {
  std::vector<std::string> out;
  for (const auto& entry : fs::recursive_directory_iterator(root / "controllers")) {
    if (!entry.is_regular_file() || entry.path().extension() != ".cc") continue;
    const std::string rel = fs::relative(entry.path(), root).generic_string();
    if (IsTest(rel)) continue;
    std::ifstream in(entry.path());
    for (const LongFunction& f : LongFunctions(in)) {
      if (AllowedLong().count({rel, f.name})) {
        allowed_seen->insert({rel, f.name});
        continue;
      }
      out.push_back(rel + ":" + std::to_string(f.line) + ": " + f.name + " (" +
                    std::to_string(f.lines) + " lines)");
    }
  }
  return out;
}

TEST(FunctionLengthTest, NoControllerFunctionIsOver80Lines) {
  ASSERT_TRUE(fs::exists(fs::path(SourceDir()) / "controllers")) << SourceDir();
  std::set<std::pair<std::string, std::string>> allowed_seen;
  const std::vector<std::string> violations = Violations(SourceDir(), &allowed_seen);
  std::string all;
  for (const auto& v : violations) all += v + "\n";
  EXPECT_TRUE(violations.empty()) << violations.size() << " functions run over " << kMaxLines
                                  << " lines; split them into steps:\n"
                                  << all;
  for (const auto& [file, name] : AllowedLong()) {
    EXPECT_TRUE(allowed_seen.count({file, name}))
        << file << ": " << name << " is no longer over " << kMaxLines
        << " lines (or was renamed): take it off AllowedLong()";
  }
}

std::string Lines(int n) {
  std::string text;
  for (int i = 0; i < n; ++i) text += "  x();\n";
  return text;
}

// The measure itself: the signature and the closing brace count, declarations, namespaces, types
// and template heads open nothing, and the name skips a return type's template arguments.
TEST(FunctionLengthTest, MeasuresFromSignatureToClosingBrace) {
  std::istringstream text("void Short() {\n" + Lines(kMaxLines - 2) + "}\n" +
                          "StatusOr<Foo> Planner::Run(int a,\n" + Lines(kMaxLines - 1) + "}\n" +
                          "void Declared(int a);\nnamespace a {\nstruct S {\nclass C;\n" +
                          "template <typename T>\n" + Lines(kMaxLines) + "}\n");
  const std::vector<LongFunction> found = LongFunctions(text);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].name, "Planner::Run");
  EXPECT_EQ(found[0].line, kMaxLines + 1);
  EXPECT_EQ(found[0].lines, kMaxLines + 1);
  EXPECT_EQ(FunctionName("std::function<void(int)> Parts::Make() const {"), "Parts::Make");
  EXPECT_EQ(FunctionName("Controllers::Controllers(runtime::Manager& manager,"),
            "Controllers::Controllers");
}

}  // namespace
}  // namespace rdmastack
