#pragma once
// A Grafana dashboard's PromQL, as Grafana would send it: every panel target's expr and the
// dashboard's template variables, and the substitution of `$var`, `${var}`, `${var:fmt}` and
// `[[var]]` in an expr.

#include <map>
#include <string>
#include <vector>

#include "base/status.h"

namespace rdmastack::testing {

struct DashboardVariable {
  std::string name, type;  // type: query, datasource, custom, ...
  std::string query;       // a query variable's query, e.g. label_values(metric{...}, label)
  bool include_all = false;
  std::string all_value;  // what "All" becomes ("" = the values joined as a regex)
};

struct PanelQuery {
  std::string panel, ref_id, expr;
};

struct Dashboard {
  std::vector<DashboardVariable> variables;
  std::vector<PanelQuery> queries;  // nested rows' panels included; hidden targets too
};

StatusOr<Dashboard> ParseDashboard(const std::string& json);

// `expr` with every variable named in `values` replaced; others are left as they are.
std::string SubstituteVariables(const std::string& expr,
                                const std::map<std::string, std::string>& values);

// label_values(SELECTOR, LABEL) -> {SELECTOR, LABEL}; an error for any other variable query.
StatusOr<std::pair<std::string, std::string>> ParseLabelValues(const std::string& query);

}  // namespace rdmastack::testing
