#include "operator/k8s/testing/selectors.h"

#include <optional>
#include <set>
#include <vector>

namespace rdmastack::k8s::testing {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// Splits at the commas outside parentheses: "a in (x,y),b" -> "a in (x,y)", "b".
StatusOr<std::vector<std::string_view>> Requirements(std::string_view selector) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= selector.size(); ++i) {
    const char c = i < selector.size() ? selector[i] : ',';
    if (c == '(') ++depth;
    if (c == ')' && --depth < 0) break;
    if (c != ',' || depth != 0) continue;
    const std::string_view part = Trim(selector.substr(start, i - start));
    if (part.empty())
      return InvalidArgumentError("empty requirement in selector '" + std::string(selector) + "'");
    out.push_back(part);
    start = i + 1;
  }
  if (depth != 0)
    return InvalidArgumentError("unbalanced parentheses in selector '" + std::string(selector) +
                                "'");
  return out;
}

StatusOr<std::set<std::string>> ValueSet(std::string_view list, std::string_view requirement) {
  list = Trim(list);
  if (list.size() < 2 || list.front() != '(' || list.back() != ')')
    return InvalidArgumentError("expected a parenthesised value list in '" +
                                std::string(requirement) + "'");
  std::set<std::string> values;
  list = list.substr(1, list.size() - 2);
  size_t start = 0;
  for (size_t i = 0; i <= list.size(); ++i) {
    if (i < list.size() && list[i] != ',') continue;
    values.insert(std::string(Trim(list.substr(start, i - start))));
    start = i + 1;
  }
  return values;
}

// A set-based requirement ("k in (a,b)", "k notin (a)"), when `r` is one.
std::optional<StatusOr<bool>> SetRequirement(std::string_view r,
                                             const std::map<std::string, std::string>& labels) {
  for (const std::string_view op : {" notin ", " in "}) {
    const size_t at = r.find(op);
    if (at == std::string_view::npos) continue;
    auto values = ValueSet(r.substr(at + op.size()), r);
    if (!values.ok()) return StatusOr<bool>(values.status());
    const auto found = labels.find(std::string(Trim(r.substr(0, at))));
    const bool in = found != labels.end() && values->count(found->second) != 0;
    return StatusOr<bool>(op == " in " ? in : !in);
  }
  return std::nullopt;
}

// "k=v", "k==v", "k!=v" as (key, value, negated); nullopt when `r` has no such operator.
struct Equality {
  std::string_view key, value;
  bool negated = false;
};
std::optional<Equality> ParseEquality(std::string_view r) {
  const size_t eq = r.find('=');
  if (eq == std::string_view::npos) return std::nullopt;
  Equality e;
  e.negated = eq > 0 && r[eq - 1] == '!';
  e.key = Trim(r.substr(0, e.negated ? eq - 1 : eq));
  const size_t value_at = eq + 1 < r.size() && r[eq + 1] == '=' ? eq + 2 : eq + 1;
  e.value = Trim(r.substr(value_at));
  return e;
}

}  // namespace

StatusOr<bool> MatchesLabelSelector(std::string_view selector,
                                    const std::map<std::string, std::string>& labels) {
  if (Trim(selector).empty()) return true;
  RDMASTACK_ASSIGN_OR_RETURN(std::vector<std::string_view> requirements, Requirements(selector));
  for (std::string_view r : requirements) {
    if (auto set = SetRequirement(r, labels)) {
      if (!set->ok()) return set->status();
      if (!**set) return false;
      continue;
    }
    if (auto e = ParseEquality(r)) {
      if (e->key.empty())
        return InvalidArgumentError("no key in requirement '" + std::string(r) + "'");
      const auto found = labels.find(std::string(e->key));
      const bool equal = found != labels.end() && found->second == e->value;
      if (equal == e->negated) return false;
      continue;
    }
    if (r.find_first_of("<>() ") != std::string_view::npos)
      return InvalidArgumentError("unsupported requirement '" + std::string(r) + "'");
    const bool negated = r.front() == '!';
    const bool present = labels.count(std::string(negated ? Trim(r.substr(1)) : r)) != 0;
    if (present == negated) return false;
  }
  return true;
}

StatusOr<bool> MatchesFieldSelector(std::string_view selector, const JsonObject& object) {
  if (Trim(selector).empty()) return true;
  RDMASTACK_ASSIGN_OR_RETURN(std::vector<std::string_view> requirements, Requirements(selector));
  for (std::string_view r : requirements) {
    const std::optional<Equality> e = ParseEquality(r);
    if (!e || e->key.empty())
      return InvalidArgumentError("field selector requirement '" + std::string(r) +
                                  "' is not path=value or path!=value");
    const std::string value = object.GetString(JsonPath::Dotted(e->key)).value_or("");
    if ((value == e->value) == e->negated) return false;
  }
  return true;
}

}  // namespace rdmastack::k8s::testing
