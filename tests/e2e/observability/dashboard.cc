#include "tests/e2e/observability/dashboard.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <cctype>

namespace rdmastack::testing {

namespace {

std::string Text(const rapidjson::Value& v, const char* name) {
  return v.IsObject() && v.HasMember(name) && v[name].IsString() ? v[name].GetString() : "";
}

void CollectPanels(const rapidjson::Value& panels, std::vector<PanelQuery>* out) {
  if (!panels.IsArray()) return;
  for (const auto& p : panels.GetArray()) {
    if (!p.IsObject()) continue;
    if (p.HasMember("panels")) CollectPanels(p["panels"], out);  // a collapsed row's panels
    if (!p.HasMember("targets") || !p["targets"].IsArray()) continue;
    for (const auto& t : p["targets"].GetArray()) {
      const std::string expr = Text(t, "expr");
      if (!expr.empty()) out->push_back({Text(p, "title"), Text(t, "refId"), expr});
    }
  }
}

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

}  // namespace

StatusOr<Dashboard> ParseDashboard(const std::string& json) {
  rapidjson::Document doc;
  if (doc.Parse(json.c_str()).HasParseError() || !doc.IsObject())
    return InvalidArgumentError("the dashboard is not a JSON object");
  if (!doc.HasMember("panels")) return InvalidArgumentError("the dashboard has no panels");
  Dashboard d;
  CollectPanels(doc["panels"], &d.queries);
  if (doc.HasMember("templating") && doc["templating"].IsObject() &&
      doc["templating"].HasMember("list") && doc["templating"]["list"].IsArray()) {
    for (const auto& v : doc["templating"]["list"].GetArray()) {
      DashboardVariable var{.name = Text(v, "name"), .type = Text(v, "type")};
      // Grafana writes a query variable's query as a string or as {query: ..., refId: ...}.
      if (v.HasMember("query"))
        var.query = v["query"].IsString() ? v["query"].GetString() : Text(v["query"], "query");
      var.include_all =
          v.HasMember("includeAll") && v["includeAll"].IsBool() && v["includeAll"].GetBool();
      var.all_value = Text(v, "allValue");
      d.variables.push_back(std::move(var));
    }
  }
  return d;
}

std::string SubstituteVariables(const std::string& expr,
                                const std::map<std::string, std::string>& values) {
  std::string out;
  for (size_t i = 0; i < expr.size();) {
    size_t end = i, name_at = i, name_end = i;
    if (expr.compare(i, 2, "${") == 0) {
      const size_t close = expr.find('}', i);
      if (close != std::string::npos) {
        name_at = i + 2;
        name_end = std::min(close, expr.find(':', name_at));  // ${var:format}
        end = close + 1;
      }
    } else if (expr.compare(i, 2, "[[") == 0) {
      const size_t close = expr.find("]]", i);
      if (close != std::string::npos) {
        name_at = i + 2;
        name_end = close;
        end = close + 2;
      }
    } else if (expr[i] == '$') {
      name_at = i + 1;
      name_end = name_at;
      while (name_end < expr.size() && IsNameChar(expr[name_end])) ++name_end;
      end = name_end;
    }
    const auto it = end > i ? values.find(expr.substr(name_at, name_end - name_at)) : values.end();
    if (it == values.end()) {
      out += expr[i++];
      continue;
    }
    out += it->second;
    i = end;
  }
  return out;
}

StatusOr<std::pair<std::string, std::string>> ParseLabelValues(const std::string& query) {
  const std::string head = "label_values(";
  const size_t comma = query.rfind(',');
  if (query.compare(0, head.size(), head) != 0 || query.back() != ')' || comma == std::string::npos)
    return InvalidArgumentError("not label_values(SELECTOR, LABEL): " + query);
  auto trim = [](std::string s) {
    const size_t a = s.find_first_not_of(' '), b = s.find_last_not_of(' ');
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
  };
  return std::make_pair(trim(query.substr(head.size(), comma - head.size())),
                        trim(query.substr(comma + 1, query.size() - comma - 2)));
}

}  // namespace rdmastack::testing
