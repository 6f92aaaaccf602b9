#pragma once
// The parts of Prometheus' HTTP API (/api/v1) the observability e2e reads, through curl: scrape
// targets, alerts and PromQL queries.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rdmastack::testing {

struct ScrapeTarget {
  std::string job, health, scrape_url, last_error;
};

struct Alert {
  std::string name, state;  // state: pending or firing
  std::map<std::string, std::string> labels;
};

struct QueryResult {
  bool ok = false;
  std::string error;  // what went wrong when !ok: curl's exit, the API's error, a bad answer
  size_t series = 0;  // result series (vector, matrix) or 1 for a scalar
  std::string body;   // the answer, for failure messages
};

class PrometheusApi {
 public:
  explicit PrometheusApi(std::string base_url) : base_(std::move(base_url)) {}

  // Active targets of `job`; empty when Prometheus does not answer.
  std::vector<ScrapeTarget> Targets(const std::string& job) const;
  // Every pending or firing alert; nullopt (and `error`) when Prometheus did not answer, so that
  // an alert that "cleared" because nothing answered is never taken for a cleared one.
  std::optional<std::vector<Alert>> Alerts(std::string* error = nullptr) const;
  // An instant query at now.
  QueryResult Query(const std::string& expr) const;
  // A range query (Unix seconds), as Grafana asks for a time-series panel.
  QueryResult QueryRange(const std::string& expr, double start, double end, int step_s) const;
  // label_values(label) over series matching `match`, as Grafana resolves a query variable.
  std::vector<std::string> LabelValues(const std::string& label, const std::string& match) const;

  const std::string& base_url() const { return base_; }

 private:
  // GET base_ + path with each (name, value) URL-encoded; "" and `error` when it failed.
  std::string Get(const std::string& path,
                  const std::vector<std::pair<std::string, std::string>>& params,
                  std::string* error) const;
  QueryResult Evaluate(const std::string& path,
                       const std::vector<std::pair<std::string, std::string>>& params) const;

  std::string base_;
};

// "name{a=\"x\",b=\"y\"} state" per alert, for failure messages.
std::string Describe(const std::vector<Alert>& alerts);

}  // namespace rdmastack::testing
