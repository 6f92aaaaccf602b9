// The dashboard reader: Grafana's variable syntaxes, nested rows, label_values queries.

#include "tests/e2e/observability/dashboard.h"

#include <gtest/gtest.h>

namespace rdmastack::testing {
namespace {

TEST(DashboardTest, SubstitutesEveryVariableSyntaxAndLeavesOthers) {
  const std::map<std::string, std::string> v = {
      {"namespace", "a|b"}, {"name", "X"}, {"__rate_interval", "1m"}};
  EXPECT_EQ(SubstituteVariables(R"(m{namespace=~"$namespace",n="$name"}[$__rate_interval])", v),
            R"(m{namespace=~"a|b",n="X"}[1m])");
  EXPECT_EQ(SubstituteVariables("${namespace} ${namespace:regex} [[name]]", v), "a|b a|b X");
  // Unknown names, a lone $ and unclosed braces stay as written.
  EXPECT_EQ(SubstituteVariables("$other $ ${name [[name", v), "$other $ ${name [[name");
}

TEST(DashboardTest, ReadsNestedPanelsAndVariables) {
  auto d = ParseDashboard(R"json({
    "templating": {"list": [
      {"name": "datasource", "type": "datasource", "query": "prometheus"},
      {"name": "ns", "type": "query", "query": {"query": "label_values(up, namespace)"},
       "includeAll": true, "allValue": ".*"}]},
    "panels": [
      {"title": "top", "targets": [{"refId": "A", "expr": "up"}]},
      {"type": "row", "panels": [{"title": "inner", "targets": [{"refId": "B", "expr": "x"},
                                                                {"refId": "C"}]}]}]})json");
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_EQ(d->queries.size(), 2u);
  EXPECT_EQ(d->queries[1].panel, "inner");
  EXPECT_EQ(d->queries[1].expr, "x");
  ASSERT_EQ(d->variables.size(), 2u);
  EXPECT_EQ(d->variables[1].query, "label_values(up, namespace)");
  EXPECT_TRUE(d->variables[1].include_all);
  EXPECT_EQ(d->variables[1].all_value, ".*");
  EXPECT_FALSE(ParseDashboard("[]").ok());
}

TEST(DashboardTest, LabelValuesQuery) {
  auto lv = ParseLabelValues(R"(label_values(m{namespace=~"a"}, gatewaypool))");
  ASSERT_TRUE(lv.ok());
  EXPECT_EQ(lv->first, R"(m{namespace=~"a"})");
  EXPECT_EQ(lv->second, "gatewaypool");
  EXPECT_FALSE(ParseLabelValues("query_result(up)").ok());
  EXPECT_FALSE(ParseLabelValues("").ok());
}

}  // namespace
}  // namespace rdmastack::testing
