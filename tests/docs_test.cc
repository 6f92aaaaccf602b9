// Docs are part of the product: every reason the node agent can report, and every condition,
// per-node and Event reason the operator's controllers can write, has a row in
// docs/troubleshooting.md. Reasons are read from the sources, so a new reason without docs fails
// here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "crds/types/reasons.h"

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

// The reason constants of the API package (crds/types/reasons.h), read as text: "kPoolConflict" ->
// "PoolConflict". Sources name them as reasons::kX or crd::reasons::kX.
const std::map<std::string, std::string>& ReasonConstants() {
  static const std::map<std::string, std::string> constants = [] {
    static const std::regex kConstant(
        R"re(inline constexpr (?:char (k\w+)\[\]|std::string_view (k\w+)) = "(\w+)";)re");
    std::map<std::string, std::string> out;
    const std::string text = Slurp(SourceDir() + "/crds/types/reasons.h");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), kConstant);
         it != std::sregex_iterator(); ++it) {
      out[(*it)[1].matched ? (*it)[1].str() : (*it)[2].str()] = (*it)[3].str();
    }
    return out;
  }();
  return constants;
}

constexpr std::string_view kReasonsQualifier = "reasons::";

// The value of the reason constant `reasons::kX` whose qualifier starts at `at` in `text`, with the
// index just past it; "" when there is none there or it names no constant of reasons.h.
std::pair<std::string, size_t> ReasonConstantAt(std::string_view text, size_t at) {
  if (text.substr(at, kReasonsQualifier.size()) != kReasonsQualifier) return {"", at};
  if (at > 0 && (std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_'))
    return {"", at};
  size_t end = at + kReasonsQualifier.size();
  while (end < text.size() &&
         (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_'))
    ++end;
  const std::string name(
      text.substr(at + kReasonsQualifier.size(), end - at - kReasonsQualifier.size()));
  const auto it = ReasonConstants().find(name);
  return {it == ReasonConstants().end() ? "" : it->second, end};
}

// The values of the reason constants named in `arg`, e.g. both of
// `cond ? reasons::kStale : reasons::kAgentDisconnected`.
void AddConstantNames(std::string_view arg, std::set<std::string>* out) {
  for (size_t at = arg.find(kReasonsQualifier); at != std::string_view::npos;
       at = arg.find(kReasonsQualifier, at + 1)) {
    if (std::string value = ReasonConstantAt(arg, at).first; !value.empty()) out->insert(value);
  }
}

// The agent's check reasons: the second argument of Fail(id, reason, ...), Warn(...) and
// Unknown(...) in agents/node-agent/checks.
std::set<std::string> AgentCheckReasons() {
  std::set<std::string> reasons;
  for (const auto& entry : std::filesystem::directory_iterator(SourceDir() + "/node/checks")) {
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
  return reasons;
}

TEST(DocsTest, EveryAgentReasonIsDocumented) {
  const std::set<std::string> reasons = AgentCheckReasons();
  ASSERT_GT(reasons.size(), 20u)
      << "the reason scanner found too few reasons; did the check API change?";
  const std::string docs = Slurp(SourceDir() + "/docs/troubleshooting.md");
  for (const auto& reason : reasons) {
    EXPECT_NE(docs.find("`" + reason + "`"), std::string::npos)
        << "reason " << reason << " is not in docs/troubleshooting.md";
  }
}

// Every ClientProfile condition reason and per-node reason the operator writes has a row in
// docs/troubleshooting.md: Ineligible(X, ...) / Refused(X, ...) in the eligibility function,
// `..._reason = X`, what blocks the profile (`return {X, ...}`) and Make(type, status, X, ...) in
// the status functions, X a literal "Reason" or a constant reasons::kReason.
TEST(DocsTest, EveryClientProfileReasonIsDocumented) {
  std::set<std::string> reasons;
  for (const char* file :
       {"eligibility.cc", "profile_status.cc", "profile_conditions.cc", "profile_plan.cc"}) {
    const std::string text = Slurp(SourceDir() + "/controllers/clientprofile/" + file);
    ASSERT_FALSE(text.empty()) << file;
    std::vector<std::string_view> calls = {"Ineligible(", "Refused(", "_reason = "};
    // What blocks the whole profile: FindBlocker's `return {X, ...}`.
    if (std::string_view(file) == "profile_conditions.cc") calls.push_back("return {");
    for (std::string_view call : calls) {
      for (size_t at = text.find(call); at != std::string::npos; at = text.find(call, at + 1)) {
        const size_t begin = at + call.size();
        const size_t end = std::min(text.find(',', begin), text.find(';', begin));
        const std::string_view first = std::string_view(text).substr(begin, end - begin);
        AddQuotedNames(first, &reasons);
        AddConstantNames(first, &reasons);
      }
    }
    for (size_t at = text.find("ConditionStatus::k"); at != std::string::npos;
         at = text.find("ConditionStatus::k", at + 1)) {
      const size_t first_comma = text.find(',', at);
      const size_t second_comma = text.find(',', first_comma + 1);
      if (first_comma == std::string::npos || second_comma == std::string::npos) continue;
      const std::string_view reason =
          std::string_view(text).substr(first_comma + 1, second_comma - first_comma - 1);
      AddQuotedNames(reason, &reasons);
      AddConstantNames(reason, &reasons);
    }
  }
  ASSERT_GT(reasons.size(), 20u) << "the reason scanner found too few reasons";
  const std::string docs = Slurp(SourceDir() + "/docs/troubleshooting.md");
  for (const auto& reason : reasons) {
    EXPECT_NE(docs.find("`" + reason + "`"), std::string::npos)
        << "ClientProfile reason " << reason << " is not in docs/troubleshooting.md";
  }
}

// ---------------------------------------------------------------------------------------------
// The operator's reasons.
//
// A controller's reason reaches people in three ways: a status condition
// (ConditionSetter::Make(type, status, reason, message)), a per-node entry (GatewayPool
// failingNodes, ClientProfile ineligibleNodes) and an Event (EventRecorder::Record(object, type,
// reason, action, note), RecordRelated(object, related, type, reason, action, note)). The sources
// are read as C++ text with comments blanked out and literals skipped when brackets are matched,
// and reasons are taken only from argument positions and assignments:
//
// - sinks: the reason argument of every `.Make(`, `.Record(` and `.RecordRelated(` call in the
//   non-test sources of the controllers. It must be understood: a literal, a constant of
//   crds/types/reasons.h (reasons::kX), a ternary or `+` of understood parts, or a variable or call
//   listed in ReasonVariables() together with the code that gives it its values. Anything else
//   fails the test, so a new way of passing a reason is caught rather than skipped.
// - per-node producers (PerNodeReasons()): the functions and fields that carry a reason into
//   failingNodes and ineligibleNodes. Each must still yield a reason, or the test says the code
//   moved.
//
// Each reason must be documented in a section of docs/troubleshooting.md whose "## " heading
// starts with its controller's name (GatewayPool, RdmaNode, ClientProfile, Agent hub; an agent
// check reason under "Node checks").

constexpr size_t kNpos = std::string_view::npos;

struct Reason {
  std::string name;
  std::string area;    // how the heading of its troubleshooting.md section starts ("" = any)
  std::string origin;  // file:line
};
using Reasons = std::vector<Reason>;

bool IsIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

bool IsReasonName(std::string_view name) {
  return !name.empty() && std::isupper(static_cast<unsigned char>(name[0])) &&
         std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)); });
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// When a string, raw string or character literal starts at `i`: the index just past it. Else `i`.
size_t SkipLiteral(std::string_view text, size_t i) {
  if (text[i] == 'R' && i + 1 < text.size() && text[i + 1] == '"' &&
      (i == 0 || !IsIdentChar(text[i - 1]))) {
    const size_t paren = text.find('(', i + 2);
    if (paren == kNpos) return text.size();
    const std::string close = ")" + std::string(text.substr(i + 2, paren - i - 2)) + "\"";
    const size_t end = text.find(close, paren + 1);
    return end == kNpos ? text.size() : end + close.size();
  }
  const bool char_literal =
      text[i] == '\'' && (i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1])));
  if (text[i] != '"' && !char_literal) return i;
  for (size_t j = i + 1; j < text.size(); ++j) {
    if (text[j] == '\\') {
      ++j;
    } else if (text[j] == text[i]) {
      return j + 1;
    }
  }
  return text.size();
}

// `text` with comments blanked out; offsets and line numbers stay.
std::string StripComments(std::string_view text) {
  std::string out(text);
  for (size_t i = 0; i < text.size();) {
    if (const size_t end = SkipLiteral(text, i); end != i) {
      i = end;
    } else if (text.substr(i, 2) == "//" || text.substr(i, 2) == "/*") {
      const bool line = text[i + 1] == '/';
      size_t end = text.find(line ? "\n" : "*/", i + 2);
      end = end == kNpos ? text.size() : end + (line ? 0 : 2);
      for (size_t j = i; j < end; ++j) {
        if (out[j] != '\n') out[j] = ' ';
      }
      i = end;
    } else {
      ++i;
    }
  }
  return out;
}

// The first index of `text` outside literals and brackets for which `pick` says yes.
template <typename Pick>
size_t FindTopLevel(std::string_view text, Pick pick) {
  int depth = 0;
  for (size_t i = 0; i < text.size();) {
    if (const size_t end = SkipLiteral(text, i); end != i) {
      i = end;
      continue;
    }
    const char c = text[i];
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    } else if (depth == 0 && pick(i)) {
      return i;
    }
    ++i;
  }
  return kNpos;
}

// The bracket closing the one at `open`.
size_t MatchingClose(std::string_view text, size_t open) {
  int depth = 0;
  for (size_t i = open; i < text.size();) {
    if (const size_t end = SkipLiteral(text, i); end != i) {
      i = end;
      continue;
    }
    const char c = text[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if ((c == ')' || c == ']' || c == '}') && --depth == 0) return i;
    ++i;
  }
  return kNpos;
}

// `text` cut at every top-level `sep` (for '+', not at ++ or +=).
std::vector<std::string_view> SplitTopLevel(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  FindTopLevel(text, [&](size_t i) {
    if (text[i] != sep) return false;
    if (sep == '+' && ((i + 1 < text.size() && (text[i + 1] == '+' || text[i + 1] == '=')) ||
                       (i > 0 && text[i - 1] == '+'))) {
      return false;
    }
    parts.push_back(text.substr(start, i - start));
    start = i + 1;
    return false;
  });
  parts.push_back(text.substr(start));
  return parts;
}

// `cond ? a : b` -> a and b; false when `text` is no ternary at its top level.
bool SplitTernary(std::string_view text, std::string_view* then_part, std::string_view* else_part) {
  const size_t question = FindTopLevel(text, [&](size_t i) { return text[i] == '?'; });
  if (question == kNpos) return false;
  int nested = 0;
  const size_t colon = FindTopLevel(text, [&](size_t i) {
    if (i <= question) return false;
    if (text[i] == '?') ++nested;
    if (text[i] != ':' || text[i - 1] == ':' || (i + 1 < text.size() && text[i + 1] == ':'))
      return false;
    return nested-- == 0;
  });
  if (colon == kNpos) return false;
  *then_part = text.substr(question + 1, colon - question - 1);
  *else_part = text.substr(colon + 1);
  return true;
}

// Without surrounding blanks, parentheses, std::string(...) and std::move(...).
std::string_view Unwrap(std::string_view s) {
  for (bool changed = true; changed;) {
    s = Trim(s);
    changed = false;
    for (std::string_view wrapper : {"(", "std::string(", "std::string_view(", "std::move("}) {
      if (s.starts_with(wrapper) && MatchingClose(s, wrapper.size() - 1) == s.size() - 1) {
        s = s.substr(wrapper.size(), s.size() - wrapper.size() - 1);
        changed = true;
        break;
      }
    }
  }
  return s;
}

bool IsStringLiteral(std::string_view s) {
  return s.size() >= 2 && s.front() == '"' && SkipLiteral(s, 0) == s.size();
}

// Whether the value that spans [begin, end) of `expr` is an operand of == or !=.
bool Compared(std::string_view expr, size_t begin, size_t end) {
  const std::string_view before = Trim(expr.substr(0, begin));
  const std::string_view after = Trim(expr.substr(end));
  return before.ends_with("==") || before.ends_with("!=") || after.starts_with("==") ||
         after.starts_with("!=");
}

// Where the qualified name whose last qualifier starts at `at` begins: `crd::reasons::kX` begins
// at `crd`.
size_t QualifiedBegin(std::string_view expr, size_t at) {
  while (at >= 2 && expr.substr(at - 2, 2) == "::") {
    size_t begin = at - 2;
    while (begin > 0 && IsIdentChar(expr[begin - 1])) --begin;
    if (begin == at - 2) break;  // a leading ::
    at = begin;
  }
  return at;
}

// The reasons of `expr` that are values rather than operands of == or !=: its CamelCase string
// literals and the reason constants it names. In
// `waiting == "CrashLoopBackOff" ? reasons::kGatewayCrashLooping : "GatewayFailing"` the last two.
std::vector<std::string> ValueLiterals(std::string_view expr) {
  std::vector<std::string> out;
  for (size_t i = 0; i < expr.size();) {
    const size_t end = SkipLiteral(expr, i);
    if (end == i) {
      const auto [constant, past] = ReasonConstantAt(expr, i);
      if (!constant.empty() && !Compared(expr, QualifiedBegin(expr, i), past))
        out.push_back(constant);
      i = std::max(past, i + 1);
      continue;
    }
    if (expr[i] == '"' && end - i >= 2) {
      const std::string_view name = expr.substr(i + 1, end - i - 2);
      if (!Compared(expr, i, end) && IsReasonName(name)) out.emplace_back(name);
    }
    i = end;
  }
  return out;
}

// The reason constant `expr` is (reasons::kX, crd::reasons::kX, rdmastack::crd::reasons::kX): its
// value, "" when `expr` is no such constant, and "?" when it names one that reasons.h lacks.
std::string ReasonConstant(std::string_view expr) {
  const size_t at = expr.rfind(kReasonsQualifier);
  if (at == kNpos || QualifiedBegin(expr, at) != 0) return "";
  const auto [value, past] = ReasonConstantAt(expr, at);
  if (past != expr.size()) return "";
  return value.empty() ? "?" : value;
}

struct SourceFile {
  std::string path;  // relative to the source directory
  std::string text;  // comments blanked out

  std::string Where(std::string_view part) const {
    const std::ptrdiff_t offset = part.data() - text.data();
    return path + ":" + std::to_string(1 + std::count(text.begin(), text.begin() + offset, '\n'));
  }
};

const SourceFile& Source(const std::string& path) {
  static std::map<std::string, SourceFile> cache;
  auto it = cache.find(path);
  if (it == cache.end()) {
    it =
        cache.emplace(path, SourceFile{path, StripComments(Slurp(SourceDir() + "/" + path))}).first;
  }
  return it->second;
}

// The arguments of every `head` in `text`: head is a name and an opening bracket, "Fail(",
// "Validation{" or "return {". `member`: only `.name(` and `->name(` calls count.
std::vector<std::vector<std::string_view>> Calls(const std::string& text, std::string_view head,
                                                 bool member) {
  std::vector<std::vector<std::string_view>> calls;
  for (size_t at = text.find(head); at != kNpos; at = text.find(head, at + 1)) {
    if (at > 0 && IsIdentChar(text[at - 1])) continue;
    const bool is_member =
        (at >= 1 && text[at - 1] == '.') || (at >= 2 && text.compare(at - 2, 2, "->") == 0);
    if (member && !is_member) continue;
    const size_t open = at + head.size() - 1;
    const size_t close = MatchingClose(text, open);
    if (close == kNpos) continue;
    calls.push_back(SplitTopLevel(std::string_view(text).substr(open + 1, close - open - 1), ','));
  }
  return calls;
}

// The right-hand sides of `lhs = ...;` (`lhs` exactly: "d.reason" does not match "x.d.reason").
std::vector<std::string_view> Assignments(const std::string& text, std::string_view lhs) {
  std::vector<std::string_view> out;
  for (size_t at = text.find(lhs); at != kNpos; at = text.find(lhs, at + 1)) {
    if (at > 0 && (IsIdentChar(text[at - 1]) || text[at - 1] == '.' || text[at - 1] == '>'))
      continue;
    size_t eq = at + lhs.size();
    while (eq < text.size() && text[eq] == ' ') ++eq;
    if (eq + 1 >= text.size() || text[eq] != '=' || text[eq + 1] == '=') continue;
    const std::string_view rest = std::string_view(text).substr(eq + 1);
    const size_t semicolon = FindTopLevel(rest, [&](size_t i) { return rest[i] == ';'; });
    out.push_back(rest.substr(0, semicolon));
  }
  return out;
}

// The expressions `function` returns (from its definition's body).
std::vector<std::string_view> Returns(const std::string& text, std::string_view function) {
  std::vector<std::string_view> out;
  for (const auto& args : Calls(text, std::string(function) + "(", false)) {
    if (args.empty()) continue;
    const size_t close = static_cast<size_t>(args.back().data() - text.data()) + args.back().size();
    const size_t body = text.find_first_not_of(" \n", close + 1);
    if (body == kNpos || text[body] != '{') continue;  // a call, not the definition
    const std::string_view block =
        std::string_view(text).substr(body, MatchingClose(text, body) - body);
    for (size_t at = block.find("return "); at != kNpos; at = block.find("return ", at + 1)) {
      const std::string_view rest = block.substr(at + 7);
      out.push_back(rest.substr(0, FindTopLevel(rest, [&](size_t i) { return rest[i] == ';'; })));
    }
  }
  return out;
}

// Reasons from the value literals of `exprs` (lenient: the rest of an expression is ignored).
Reasons FromLiterals(const SourceFile& file, const std::vector<std::string_view>& exprs,
                     const std::string& area) {
  Reasons out;
  for (std::string_view e : exprs) {
    for (auto& name : ValueLiterals(e)) out.push_back({std::move(name), area, file.Where(e)});
  }
  return out;
}

// Producer kinds: the literals assigned to `lhs`, passed as argument `arg` of `head`, returned by
// `function`, or initialising the constants whose names start with `prefix`.
Reasons Assigned(const std::string& path, std::string_view lhs, const std::string& area) {
  const SourceFile& f = Source(path);
  return FromLiterals(f, Assignments(f.text, lhs), area);
}

Reasons Argument(const std::string& path, std::string_view head, size_t arg,
                 const std::string& area) {
  const SourceFile& f = Source(path);
  std::vector<std::string_view> exprs;
  for (const auto& args : Calls(f.text, head, false)) {
    if (arg < args.size()) exprs.push_back(args[arg]);
  }
  return FromLiterals(f, exprs, area);
}

Reasons Returned(const std::string& path, std::string_view function, const std::string& area) {
  const SourceFile& f = Source(path);
  return FromLiterals(f, Returns(f.text, function), area);
}

Reasons Constants(const std::string& path, std::string_view prefix, const std::string& area) {
  const SourceFile& f = Source(path);
  std::set<std::string> names;
  for (size_t at = f.text.find(prefix); at != kNpos; at = f.text.find(prefix, at + 1)) {
    if (at > 0 && IsIdentChar(f.text[at - 1])) continue;
    size_t end = at;
    while (end < f.text.size() && IsIdentChar(f.text[end])) ++end;
    names.insert(f.text.substr(at, end - at));
  }
  std::vector<std::string_view> exprs;
  for (const auto& name : names) {
    for (std::string_view rhs : Assignments(f.text, name)) exprs.push_back(rhs);
  }
  return FromLiterals(f, exprs, area);
}

// The literals inside the braces that follow `name` (a table such as kPhases).
Reasons TableEntries(const std::string& path, std::string_view name, const std::string& area) {
  const SourceFile& f = Source(path);
  const size_t at = f.text.find(name);
  const size_t open = at == kNpos ? kNpos : f.text.find('{', at);
  if (open == kNpos) return {};
  const size_t close = MatchingClose(f.text, open);
  return FromLiterals(f, {std::string_view(f.text).substr(open, close - open)}, area);
}

Reasons& Append(Reasons& to, Reasons more) {
  to.insert(to.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  return to;
}

// Append for the sources ReasonVariables() reads: each must yield at least one reason. One that
// yields none reads code that has moved (a renamed variable, a decision moved to another file),
// and the reasons set there would go unchecked.
// (__builtin_LINE, not std::source_location: clang 14, which builds the sanitizer trees, has no
// std::source_location with libstdc++ 12.)
Reasons& AppendFound(Reasons& to, Reasons more, int from_line = __builtin_LINE()) {
  if (more.empty())
    ADD_FAILURE() << "the source of reasons at tests/docs_test.cc:" << from_line
                  << " yields none; the code it reads has moved: point it at where the reasons "
                     "are set now";
  return Append(to, std::move(more));
}

// Where the reason variables that sinks pass on get their values. Keys are the expressions as
// written in the sinks; a call is keyed by its function name and "()".
using Variables = std::map<std::string, Reasons>;

Variables ReasonVariables() {
  const std::string gwp = "controllers/gatewaypool/", cprof = "controllers/clientprofile/";
  Variables v;
  // GatewayPool: the compatibility decision (LibraryCompatible, and Ready, Progressing and
  // Upgrading while the spec is refused).
  AppendFound(v["in.decision.reason"], Assigned(gwp + "track.cc", "d.reason", "GatewayPool"));
  AppendFound(v["in.decision.reason"], Assigned(gwp + "pool_plan.cc", "d.reason", "GatewayPool"));
  AppendFound(v["in.decision.reason"], Argument(gwp + "pool_plan.cc", "Refuse(", 1, "GatewayPool"));
  // The upgrade event of a node's phase: "Upgrade" + PhaseName(...).
  AppendFound(v["PhaseName()"],
              TableEntries("crds/types/node_upgrade.cc", "kPhases", "GatewayPool"));
  // Which Secret a pool lacks: the credentials (the default) or the TLS one.
  AppendFound(v["in.secret_reason"],
              Assigned(gwp + "pool_status.h", "secret_reason", "GatewayPool"));
  AppendFound(v["in.secret_reason"],
              Assigned(gwp + "pool_plan.cc", "in.secret_reason", "GatewayPool"));
  // The launcher's refusals that carry a reason of their own (lib/compat/named_refusal.h).
  AppendFound(v["named->reason"],
              Constants("lib/compat/named_refusal.h", "kReason", "GatewayPool"));
  AppendFound(v["named->reason"],
              Constants("lib/compat/library_digest.h", "kReason", "GatewayPool"));
  // A node's maintenance steps.
  AppendFound(v["d.maintenance.event_reason"],
              Assigned(gwp + "node_maintenance.cc", "step.event_reason", "GatewayPool"));
  // RdmaNode verdict conditions: the operator's fallbacks, the agent's verdict reasons and, when
  // not capable, the blocking check's reason (documented with the node checks).
  AppendFound(v["outcome->reason"],
              Assigned("controllers/rdmanode/rdmanode_status.cc", "out.reason", "RdmaNode"));
  AppendFound(v["outcome->reason"], Assigned("node/checks/evaluate.cc", "v.reason", "RdmaNode"));
  for (const auto& name : AgentCheckReasons())
    v["outcome->reason"].push_back({name, "Node checks", "node/checks"});
  // ClientProfile: what blocks the whole profile (Ready and Degraded).
  AppendFound(v["f.blocker.reason"],
              Returned(cprof + "profile_conditions.cc", "FindBlocker", "ClientProfile"));
  AppendFound(v["f.blocker.reason"],
              Assigned(cprof + "profile_plan.cc", "in.refused_reason", "ClientProfile"));
  // The admin's host limits refuse pools and profiles alike (controllers/common/host_policy.h).
  const std::string host_policy = "controllers/common/host_policy.h";
  AppendFound(v["in.decision.reason"], Constants(host_policy, "kReason", "GatewayPool"));
  AppendFound(v["f.blocker.reason"],
              Constants(host_policy, "kReasonControlPlaneToleration", "ClientProfile"));
  // Agent hub refusals: the admission decision's and the stream's (Warning events on the Node).
  AppendFound(v["decision.reason"],
              Constants("servers/agenthub/admission.h", "kReason", "Agent hub"));
  AppendFound(v["decision.reason"],
              Argument("servers/agenthub/agent_stream.cc", "Refuse(", 0, "Agent hub"));
  // A pool's plan carries its events to the applier (pool_plan.h): their reasons are read where
  // the plan makes them (the PlannedEvent{ sink), and the applier's `e.reason` adds none.
  v["e.reason"] = {};
  return v;
}

// Reasons that reach per-node lists without passing a sink. Each producer must yield something.
Reasons PerNodeReasons(std::vector<std::string>* problems) {
  const std::string gwp = "controllers/gatewaypool/", cprof = "controllers/clientprofile/";
  const std::vector<std::pair<std::string, Reasons>> producers = {
      // GatewayPool failingNodes: why a node is not verified ...
      {"Fail( in node_verdict.cc", Argument(gwp + "node_verdict.cc", "Fail(", 0, "GatewayPool")},
      // ... why its gateway does not serve ...
      {"p.reason in pool_node_tally.cc",
       Assigned(gwp + "pool_node_tally.cc", "p.reason", "GatewayPool")},
      // ... and why its upgrade was rolled back or failed.
      {"RollBack( in upgrade_plan.cc",
       Argument(gwp + "upgrade_plan.cc", "RollBack(", 1, "GatewayPool")},
      {"return { in upgrade_plan.cc",
       Argument(gwp + "upgrade_plan.cc", "return {", 0, "GatewayPool")},
      {"ReasonOf in gateway_validator.cc",
       Returned(gwp + "gateway_validator.cc", "ReasonOf", "GatewayPool")},
      {"Validation{ in gatewaypool_reconciler.cc",
       Argument(gwp + "gatewaypool_reconciler.cc", "Validation{", 1, "GatewayPool")},
      // ClientProfile ineligibleNodes.
      {"Ineligible( in eligibility.cc",
       Argument(cprof + "eligibility.cc", "Ineligible(", 0, "ClientProfile")},
      {"Refused( in eligibility.cc",
       Argument(cprof + "eligibility.cc", "Refused(", 0, "ClientProfile")},
  };
  Reasons out;
  for (const auto& [what, found] : producers) {
    if (found.empty()) {
      problems->push_back("no reason found through " + what +
                          "; the code moved: update PerNodeReasons() in tests/docs_test.cc");
    }
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

// The reasons `expr` (a sink's reason argument in `file`) can evaluate to. Literals belong to
// `area`; variables bring their own. What cannot be followed goes to `problems`.
Reasons Resolve(const SourceFile& file, std::string_view expr, const std::string& area,
                const Variables& vars, std::vector<std::string>* problems) {
  expr = Unwrap(expr);
  std::string_view then_part, else_part;
  if (SplitTernary(expr, &then_part, &else_part)) {
    Reasons out = Resolve(file, then_part, area, vars, problems);
    return Append(out, Resolve(file, else_part, area, vars, problems));
  }
  if (const auto parts = SplitTopLevel(expr, '+'); parts.size() > 1) {
    Reasons product = {{"", area, file.Where(expr)}};
    for (std::string_view part : parts) {
      Reasons next;
      for (const Reason& left : product) {
        for (const Reason& right : Resolve(file, part, area, vars, problems))
          next.push_back({left.name + right.name, area, file.Where(expr)});
      }
      product = std::move(next);
    }
    return product;
  }
  if (IsStringLiteral(expr))
    return {{std::string(expr.substr(1, expr.size() - 2)), area, file.Where(expr)}};
  if (const std::string value = ReasonConstant(expr); value == "?") {
    problems->push_back(file.Where(expr) + ": `" + std::string(expr) +
                        "` is no constant of crds/types/reasons.h");
    return {};
  } else if (!value.empty()) {
    return {{value, area, file.Where(expr)}};
  }
  std::string key(expr);
  if (const size_t paren = expr.find('(');
      paren != kNpos && MatchingClose(expr, paren) == expr.size() - 1) {
    key = std::string(Trim(expr.substr(0, paren))) + "()";
  }
  if (auto it = vars.find(key); it != vars.end()) return it->second;
  problems->push_back(file.Where(expr) + ": cannot tell which reasons `" + std::string(expr) +
                      "` can be; add it to ReasonVariables() in tests/docs_test.cc with the code "
                      "that sets it");
  return {};
}

struct OperatorReasons {
  Reasons conditions;  // status conditions and per-node entries
  Reasons events;
  std::vector<std::string> problems;
};

OperatorReasons CollectOperatorReasons() {
  struct Controller {
    const char* dir;
    const char* area;  // "" = any section
  };
  static constexpr Controller kControllers[] = {{"controllers/gatewaypool", "GatewayPool"},
                                                {"controllers/rdmanode", "RdmaNode"},
                                                {"controllers/clientprofile", "ClientProfile"},
                                                {"servers/agenthub", "Agent hub"},
                                                {"controllers/common", ""}};
  OperatorReasons out;
  Variables vars = ReasonVariables();
  for (const Controller& c : kControllers) {
    std::vector<std::string> files;
    for (const auto& entry :
         std::filesystem::recursive_directory_iterator(SourceDir() + "/" + c.dir)) {
      const std::string name = entry.path().filename().string();
      const std::string path = entry.path().string().substr(SourceDir().size() + 1);
      const bool source = entry.path().extension() == ".cc" || entry.path().extension() == ".h";
      if (!source || name.ends_with("_test.cc") || path.find("/tests/") != kNpos ||
          path.find("/testing/") != kNpos) {
        continue;
      }
      files.push_back(path);
    }
    if (files.empty()) out.problems.push_back(std::string("no sources under ") + c.dir);
    auto sink = [&](const std::string& path, std::string_view head, size_t arg, Reasons* into,
                    bool member = true) {
      const SourceFile& f = Source(path);
      for (const auto& args : Calls(f.text, head, member)) {
        if (arg >= args.size()) {
          out.problems.push_back(f.Where(args.front()) + ": " + std::string(head) +
                                 " with fewer arguments than expected");
          continue;
        }
        for (Reason& r : Resolve(f, args[arg], c.area, vars, &out.problems)) {
          if (!IsReasonName(r.name)) {
            out.problems.push_back(r.origin + ": reason '" + r.name + "' is not CamelCase");
          } else {
            into->push_back(std::move(r));
          }
        }
      }
    };
    // Conditions first: an event about a condition change passes its reason (c->reason) on; the
    // common skeleton's (owner_status.cc) passes on any controller's.
    Reasons conditions;
    for (const auto& path : files) sink(path, "Make(", 2, &conditions);
    vars["c->reason"] = conditions;
    if (std::string_view(c.area).empty()) Append(vars["c->reason"], out.conditions);
    for (const auto& path : files) {
      sink(path, "Record(", 2, &out.events);
      sink(path, "RecordRelated(", 3, &out.events);
      sink(path, "PlannedEvent{", 2, &out.events, false);
    }
    Append(out.conditions, std::move(conditions));
  }
  Append(out.conditions, PerNodeReasons(&out.problems));
  return out;
}

// The "## " sections of a Markdown text: heading line -> text (heading included).
std::vector<std::pair<std::string, std::string>> Sections(const std::string& docs) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(docs);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("## ") || out.empty()) out.emplace_back(line, "");
    out.back().second += line + "\n";
  }
  return out;
}

// Expects every reason in `found` in backquotes in its section of docs/troubleshooting.md; on a
// miss, lists the reasons found per section and where each comes from.
void ExpectDocumented(const Reasons& found, const char* what) {
  const auto sections = Sections(Slurp(SourceDir() + "/docs/troubleshooting.md"));
  ASSERT_FALSE(sections.empty());
  std::map<std::pair<std::string, std::string>, std::set<std::string>> by_area;  // -> origins
  for (const Reason& r : found) by_area[{r.area, r.name}].insert(r.origin);
  std::string missing;
  for (const auto& [key, origins] : by_area) {
    const auto& [area, name] = key;
    const bool documented = std::any_of(
        sections.begin(), sections.end(), [&, &area = area, &name = name](const auto& s) {
          return s.first.starts_with("## " + area) &&
                 s.second.find("`" + name + "`") != std::string::npos;
        });
    if (documented) continue;
    missing += "  " + name + " (section \"" + (area.empty() ? "any" : area) + "\"), from";
    for (const auto& o : origins) missing += " " + o;
    missing += "\n";
  }
  if (missing.empty()) return;
  std::string listing;
  std::string area = "\x01";
  for (const auto& [key, origins] : by_area) {
    if (key.first != area) {
      area = key.first;
      listing += std::string(listing.empty() ? "" : "\n") + "  [" + area + "]";
    }
    listing += " " + key.second;
  }
  ADD_FAILURE() << "not documented in their section of docs/troubleshooting.md (as `Reason`), "
                << what << ":\n"
                << missing << "all " << what << " found, by section:\n"
                << listing << "\n";
}

TEST(DocsTest, EveryOperatorConditionReasonIsDocumented) {
  const OperatorReasons found = CollectOperatorReasons();
  for (const auto& p : found.problems) ADD_FAILURE() << p;
  std::set<std::string> names;
  for (const Reason& r : found.conditions) names.insert(r.name);
  EXPECT_GT(names.size(), 60u) << "the scanner found too few reasons; did the sources change?";
  ExpectDocumented(found.conditions, "condition and per-node reasons");
}

TEST(DocsTest, EveryOperatorEventReasonIsDocumented) {
  const OperatorReasons found = CollectOperatorReasons();
  for (const auto& p : found.problems) ADD_FAILURE() << p;
  std::set<std::string> names;
  for (const Reason& r : found.events) names.insert(r.name);
  EXPECT_GT(names.size(), 30u) << "the scanner found too few event reasons";
  for (const char* expected : {"UpgradeRollBack", "NodeMismatch", "GatewaysReady"})
    EXPECT_EQ(names.count(expected), 1u) << expected << " should be an event reason";
  ExpectDocumented(found.events, "Event reasons");
}

// The API package's list of reasons (crds/types/reasons.h kAll): each has its row in the section
// of the kind that uses it, whether or not the scanner above finds where it is set.
TEST(DocsTest, EveryReasonOfTheApiPackageIsDocumented) {
  const auto sections = Sections(Slurp(SourceDir() + "/docs/troubleshooting.md"));
  ASSERT_FALSE(sections.empty());
  for (const crd::reasons::UsedBy& r : crd::reasons::kAll) {
    const std::string heading = "## " + std::string(crd::reasons::KindName(r.kind));
    const std::string row = "`" + std::string(r.reason) + "`";
    const bool documented = std::any_of(sections.begin(), sections.end(), [&](const auto& s) {
      return s.first.starts_with(heading) && s.second.find(row) != std::string::npos;
    });
    EXPECT_TRUE(documented) << r.reason << " has no row in a section \"" << heading
                            << "...\" of docs/troubleshooting.md";
  }
}

// kAll lists every constant of reasons.h, each named after its value, and the scanner reads the
// header as the compiler does.
TEST(DocsTest, TheApiPackageListsEveryReasonConstant) {
  const std::map<std::string, std::string>& constants = ReasonConstants();
  ASSERT_GT(constants.size(), 60u) << "the scanner found too few constants in reasons.h";
  std::set<std::string> listed;
  for (const crd::reasons::UsedBy& r : crd::reasons::kAll) listed.insert(std::string(r.reason));
  std::set<std::string> values;
  for (const auto& [name, value] : constants) {
    values.insert(value);
    EXPECT_EQ(name, "k" + value) << "a reason constant is named after its value";
    EXPECT_EQ(listed.count(value), 1u) << name << " is not in reasons.h kAll";
  }
  for (const std::string& reason : listed)
    EXPECT_EQ(values.count(reason), 1u) << reason << " of kAll is no constant the scanner reads";
}

// Quoted literals "rdmastack_..." (metric names and name prefixes) and "_..." (suffixes joined to
// a prefix) in the operator's product sources, tests left out.
struct MetricLiterals {
  std::set<std::string> names;
  std::set<std::string> suffixes;
};

MetricLiterals CollectMetricLiterals() {
  MetricLiterals out;
  auto is_name_char = [](char c) {
    return std::islower(static_cast<unsigned char>(c)) ||
           std::isdigit(static_cast<unsigned char>(c)) || c == '_';
  };
  for (const char* dir : {"operator", "servers", "controllers", "cmd/rdmastack-operator"}) {
    for (const auto& entry :
         std::filesystem::recursive_directory_iterator(SourceDir() + "/" + dir)) {
      const std::string path = entry.path().string();
      if (entry.path().extension() != ".cc" || path.find("_test.cc") != std::string::npos ||
          path.find("/tests/") != std::string::npos ||
          path.find("/testing/") != std::string::npos) {
        continue;
      }
      const std::string text = Slurp(entry.path());
      for (size_t open = text.find('"'); open != std::string::npos;
           open = text.find('"', open + 1)) {
        const size_t close = text.find('"', open + 1);
        if (close == std::string::npos) break;
        const std::string literal = text.substr(open + 1, close - open - 1);
        open = close;
        if (literal.empty() || !std::all_of(literal.begin(), literal.end(), is_name_char)) continue;
        if (literal.rfind("rdmastack_", 0) == 0) out.names.insert(literal);
        if (literal.size() > 1 && literal[0] == '_') out.suffixes.insert(literal);
      }
    }
  }
  return out;
}

// Backquoted rdmastack_* names in the "## Metrics" section of docs/operations.md.
std::set<std::string> DocumentedMetrics() {
  const std::string docs = Slurp(SourceDir() + "/docs/operations.md");
  const size_t begin = docs.find("\n## Metrics\n");
  const size_t end = docs.find("\n## ", begin + 1);
  std::set<std::string> out;
  if (begin == std::string::npos) return out;
  const std::string section = docs.substr(begin, end - begin);
  for (size_t at = section.find("`rdmastack_"); at != std::string::npos;
       at = section.find("`rdmastack_", at + 1)) {
    const size_t close = section.find('`', at + 1);
    out.insert(section.substr(at + 1, close - at - 1));
  }
  return out;
}

TEST(DocsTest, EveryOperatorMetricIsDocumentedAndEveryDocumentedOneExists) {
  const MetricLiterals code = CollectMetricLiterals();
  const std::set<std::string> docs = DocumentedMetrics();
  ASSERT_GT(docs.size(), 25u) << "docs/operations.md \"## Metrics\" lists too few metrics";
  ASSERT_GT(code.names.size(), 15u) << "the scanner found too few metric names in the sources";
  auto made_from = [&](const std::string& doc) {
    if (code.names.count(doc) != 0) return true;
    for (const std::string& prefix : code.names) {
      if (doc.rfind(prefix, 0) == 0 && code.suffixes.count(doc.substr(prefix.size())) != 0) {
        return true;
      }
    }
    return false;
  };
  for (const std::string& doc : docs) {
    EXPECT_TRUE(made_from(doc)) << doc << " is documented but no source makes it";
  }
  for (const std::string& name : code.names) {
    const bool documented =
        docs.count(name) != 0 || std::any_of(docs.begin(), docs.end(), [&](const std::string& d) {
          return d.rfind(name + "_", 0) == 0;  // a prefix of documented names
        });
    EXPECT_TRUE(documented) << name
                            << " is made by the operator but not in docs/operations.md "
                               "\"## Metrics\"";
  }
}

}  // namespace
}  // namespace rdmastack
