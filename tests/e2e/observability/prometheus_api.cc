#include "tests/e2e/observability/prometheus_api.h"

#include <rapidjson/document.h>

#include "tests/harness/cluster_env.h"

namespace rdmastack::testing {

namespace {

std::string Field(const rapidjson::Value& v, const char* name) {
  return v.IsObject() && v.HasMember(name) && v[name].IsString() ? v[name].GetString() : "";
}

// The API's envelope: {"status":"success","data":...} or {"status":"error","error":...}.
bool ParseEnvelope(const std::string& body, rapidjson::Document* doc, std::string* error) {
  if (doc->Parse(body.c_str()).HasParseError() || !doc->IsObject()) {
    *error = "not JSON: " + body.substr(0, 300);
    return false;
  }
  if (Field(*doc, "status") != "success") {
    *error = Field(*doc, "errorType") + ": " + Field(*doc, "error");
    return false;
  }
  if (!doc->HasMember("data")) {
    *error = "no data in " + body.substr(0, 300);
    return false;
  }
  return true;
}

}  // namespace

std::string PrometheusApi::Get(const std::string& path,
                               const std::vector<std::pair<std::string, std::string>>& params,
                               std::string* error) const {
  std::vector<std::string> argv = {"curl", "-sS", "--max-time", "10", "-G", base_ + path};
  for (const auto& [name, value] : params) {
    argv.push_back("--data-urlencode");
    argv.push_back(name + "=" + value);
  }
  CommandResult r = RunCommand(argv);
  if (r.exit_code != 0) {
    *error = "curl " + base_ + path + ": exit " + std::to_string(r.exit_code) + " " + r.err;
    return "";
  }
  return r.out;
}

std::vector<ScrapeTarget> PrometheusApi::Targets(const std::string& job) const {
  std::string error;
  const std::string body = Get("/api/v1/targets", {{"state", "active"}}, &error);
  rapidjson::Document doc;
  std::vector<ScrapeTarget> out;
  if (body.empty() || !ParseEnvelope(body, &doc, &error)) return out;
  const auto& data = doc["data"];
  if (!data.HasMember("activeTargets") || !data["activeTargets"].IsArray()) return out;
  for (const auto& t : data["activeTargets"].GetArray()) {
    const std::string target_job = t.HasMember("labels") ? Field(t["labels"], "job") : "";
    if (target_job != job) continue;
    out.push_back({target_job, Field(t, "health"), Field(t, "scrapeUrl"), Field(t, "lastError")});
  }
  return out;
}

std::optional<std::vector<Alert>> PrometheusApi::Alerts(std::string* error) const {
  std::string why;
  const std::string body = Get("/api/v1/alerts", {}, &why);
  rapidjson::Document doc;
  std::vector<Alert> out;
  if (!body.empty() && ParseEnvelope(body, &doc, &why) &&
      (!doc["data"].HasMember("alerts") || !doc["data"]["alerts"].IsArray()))
    why = "no alerts in " + body.substr(0, 300);
  if (!why.empty()) {
    if (error != nullptr) *error = why;
    return std::nullopt;
  }
  const auto& data = doc["data"];
  for (const auto& a : data["alerts"].GetArray()) {
    Alert alert;
    alert.state = Field(a, "state");
    if (a.HasMember("labels") && a["labels"].IsObject()) {
      for (const auto& m : a["labels"].GetObject()) {
        if (m.value.IsString()) alert.labels[m.name.GetString()] = m.value.GetString();
      }
    }
    alert.name = alert.labels["alertname"];
    out.push_back(std::move(alert));
  }
  return out;
}

QueryResult PrometheusApi::Evaluate(
    const std::string& path, const std::vector<std::pair<std::string, std::string>>& params) const {
  QueryResult r;
  r.body = Get(path, params, &r.error);
  if (r.body.empty()) return r;
  rapidjson::Document doc;
  if (!ParseEnvelope(r.body, &doc, &r.error)) return r;
  const auto& data = doc["data"];
  if (!data.HasMember("result")) {
    r.error = "no result in " + r.body.substr(0, 300);
    return r;
  }
  const auto& result = data["result"];
  r.series = result.IsArray() ? (Field(data, "resultType") == "scalar" ? 1 : result.Size()) : 0;
  r.ok = true;
  return r;
}

QueryResult PrometheusApi::Query(const std::string& expr) const {
  return Evaluate("/api/v1/query", {{"query", expr}});
}

QueryResult PrometheusApi::QueryRange(const std::string& expr, double start, double end,
                                      int step_s) const {
  return Evaluate("/api/v1/query_range", {{"query", expr},
                                          {"start", std::to_string(start)},
                                          {"end", std::to_string(end)},
                                          {"step", std::to_string(step_s)}});
}

std::vector<std::string> PrometheusApi::LabelValues(const std::string& label,
                                                    const std::string& match) const {
  std::string error;
  const std::string body = Get("/api/v1/label/" + label + "/values", {{"match[]", match}}, &error);
  rapidjson::Document doc;
  std::vector<std::string> out;
  if (body.empty() || !ParseEnvelope(body, &doc, &error) || !doc["data"].IsArray()) return out;
  for (const auto& v : doc["data"].GetArray())
    if (v.IsString()) out.push_back(v.GetString());
  return out;
}

std::string Describe(const std::vector<Alert>& alerts) {
  std::string out;
  for (const Alert& a : alerts) {
    out += "  " + a.name + "{";
    bool first = true;
    for (const auto& [k, v] : a.labels) {
      if (k == "alertname") continue;
      out += (first ? "" : ",") + k + "=\"" + v + "\"";
      first = false;
    }
    out += "} " + a.state + "\n";
  }
  return out.empty() ? "  (none)\n" : out;
}

}  // namespace rdmastack::testing
