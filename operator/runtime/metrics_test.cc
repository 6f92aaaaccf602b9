#include "operator/runtime/metrics.h"

#include <gtest/gtest.h>

namespace rdmastack::runtime {
namespace {

TEST(MetricsRegistryTest, RendersCountersGaugesAndHistogramsInTextFormat) {
  MetricsRegistry r;
  r.CounterFamily("controller_runtime_reconcile_total", "Total reconciles",
                  {"controller", "result"})
      .With({"pool", "success"})
      .Inc(3);
  r.GaugeFamily("workqueue_depth", "Depth", {"name"}).With({"pool"}).Set(7);
  auto& h = r.HistogramFamily("controller_runtime_reconcile_time_seconds", "Latency",
                              {"controller"}, {0.1, 1.0})
                .With({"pool"});
  h.Observe(0.05);
  h.Observe(0.5);
  h.Observe(5);
  EXPECT_EQ(r.Render(),
            "# HELP controller_runtime_reconcile_time_seconds Latency\n"
            "# TYPE controller_runtime_reconcile_time_seconds histogram\n"
            "controller_runtime_reconcile_time_seconds_bucket{controller=\"pool\",le=\"0.1\"} 1\n"
            "controller_runtime_reconcile_time_seconds_bucket{controller=\"pool\",le=\"1\"} 2\n"
            "controller_runtime_reconcile_time_seconds_bucket{controller=\"pool\",le=\"+Inf\"} 3\n"
            "controller_runtime_reconcile_time_seconds_sum{controller=\"pool\"} 5.55\n"
            "controller_runtime_reconcile_time_seconds_count{controller=\"pool\"} 3\n"
            "# HELP controller_runtime_reconcile_total Total reconciles\n"
            "# TYPE controller_runtime_reconcile_total counter\n"
            "controller_runtime_reconcile_total{controller=\"pool\",result=\"success\"} 3\n"
            "# HELP workqueue_depth Depth\n"
            "# TYPE workqueue_depth gauge\n"
            "workqueue_depth{name=\"pool\"} 7\n");
}

TEST(MetricsRegistryTest, SameLabelsShareOneSeriesAndReRegistrationReturnsTheFamily) {
  MetricsRegistry r;
  auto& a = r.CounterFamily("c_total", "h", {"k"});
  auto& b = r.CounterFamily("c_total", "other help", {"k"});
  EXPECT_EQ(&a, &b);
  a.With({"x"}).Inc();
  b.With({"x"}).Inc();
  EXPECT_EQ(a.With({"x"}).Value(), 2);
}

TEST(MetricsRegistryTest, EscapesLabelValues) {
  struct Case {
    std::string in, want;
  };
  const Case cases[] = {
      {"plain", "plain"}, {"a\"b", "a\\\"b"}, {"a\\b", "a\\\\b"}, {"line\nbreak", "line\\nbreak"}};
  for (const Case& c : cases) EXPECT_EQ(EscapeLabelValue(c.in), c.want);
}

TEST(MetricsRegistryTest, UnlabelledMetricHasNoBraces) {
  MetricsRegistry r;
  r.GaugeFamily("up", "h", {}).With({}).Set(1);
  EXPECT_NE(r.Render().find("\nup 1\n"), std::string::npos);
}

}  // namespace
}  // namespace rdmastack::runtime
