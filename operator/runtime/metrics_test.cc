#include "operator/runtime/metrics.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>

namespace rdmastack::runtime {
namespace {

::testing::AssertionResult HasLine(const std::string& text, const std::string& line) {
  if (("\n" + text).find("\n" + line + "\n") != std::string::npos) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "no line \"" << line << "\" in:\n" << text;
}

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
  const std::string text = r.Render();
  for (const char* line : {
           "# HELP controller_runtime_reconcile_total Total reconciles",
           "# TYPE controller_runtime_reconcile_total counter",
           "controller_runtime_reconcile_total{controller=\"pool\",result=\"success\"} 3",
           "# HELP workqueue_depth Depth",
           "# TYPE workqueue_depth gauge",
           "workqueue_depth{name=\"pool\"} 7",
           "# TYPE controller_runtime_reconcile_time_seconds histogram",
           "controller_runtime_reconcile_time_seconds_bucket{controller=\"pool\",le=\"0.1\"} 1",
           "controller_runtime_reconcile_time_seconds_bucket{controller=\"pool\",le=\"1\"} 2",
           "controller_runtime_reconcile_time_seconds_bucket{controller=\"pool\",le=\"+Inf\"} 3",
           "controller_runtime_reconcile_time_seconds_sum{controller=\"pool\"} 5.55",
           "controller_runtime_reconcile_time_seconds_count{controller=\"pool\"} 3",
       }) {
    EXPECT_TRUE(HasLine(text, line));
  }
}

TEST(MetricsRegistryTest, SamplersAreAskedAtEveryRenderAndTheirSeriesComeAndGo) {
  MetricsRegistry r;
  r.GaugeFamily("registered_gauge", "Registered", {}).With({}).Set(1);
  int pools = 2;
  int calls = 0;
  r.AddSampler([&] {
    ++calls;
    SampledFamily f{"rdmastack_test_pool_nodes", "Nodes per pool", {}};
    for (int i = 0; i < pools; ++i) {
      f.series.push_back({{{"gatewaypool", "p" + std::to_string(i)}, {"state", "ready"}}, 3.0 + i});
    }
    return std::vector<SampledFamily>{f, SampledFamily{"rdmastack_test_empty", "Nothing", {}}};
  });
  std::string text = r.Render();
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(HasLine(text, "registered_gauge 1"));
  EXPECT_TRUE(HasLine(text, "# TYPE rdmastack_test_pool_nodes gauge"));
  EXPECT_TRUE(HasLine(text, "rdmastack_test_pool_nodes{gatewaypool=\"p0\",state=\"ready\"} 3"));
  EXPECT_TRUE(HasLine(text, "rdmastack_test_pool_nodes{gatewaypool=\"p1\",state=\"ready\"} 4"));
  // A family without series is left out rather than rendered as a bare HELP/TYPE pair.
  EXPECT_EQ(text.find("rdmastack_test_empty"), std::string::npos);

  pools = 1;  // the object went away: so does its series, at the next scrape
  text = r.Render();
  EXPECT_EQ(calls, 2);
  EXPECT_TRUE(HasLine(text, "rdmastack_test_pool_nodes{gatewaypool=\"p0\",state=\"ready\"} 3"));
  EXPECT_EQ(text.find("gatewaypool=\"p1\""), std::string::npos) << text;
}

// Counters someone else counts (a node's port counters, as its agent reported them) are sampled
// too, and typed as counters so that rate() and increase() read them as such.
TEST(MetricsRegistryTest, SampledCountersAreTypedAsCounters) {
  MetricsRegistry r;
  r.AddSampler([] {
    SampledFamily f{"rdmastack_test_bytes_total", "Bytes", {}, SampledType::kCounter};
    f.series.push_back({{{"node", "n1"}}, 18446744073709551615.0});
    return std::vector<SampledFamily>{f};
  });
  const std::string text = r.Render();
  EXPECT_TRUE(HasLine(text, "# TYPE rdmastack_test_bytes_total counter")) << text;
  EXPECT_TRUE(HasLine(text, "rdmastack_test_bytes_total{node=\"n1\"} 1.844674407370955e+19"))
      << text;
}

TEST(MetricsRegistryTest, SameLabelsShareOneSeriesAndReRegistrationReturnsTheFamily) {
  MetricsRegistry r;
  auto& a = r.CounterFamily("c_total", "h", {"k"});
  auto& b = r.CounterFamily("c_total", "other help", {"k"});
  EXPECT_EQ(&a, &b);
  EXPECT_EQ(&a.With({"x"}), &b.With({"x"}));
  a.With({"x"}).Inc();
  b.With({"x"}).Inc();
  EXPECT_EQ(a.With({"x"}).Value(), 2);
  EXPECT_EQ(a.With({"y"}).Value(), 0);
  EXPECT_TRUE(HasLine(r.Render(), "c_total{k=\"x\"} 2"));
}

TEST(MetricsRegistryTest, GaugesMoveBothWays) {
  MetricsRegistry r;
  Gauge& g = r.GaugeFamily("g", "h", {}).With({});
  g.Inc(5);
  g.Dec(2);
  EXPECT_EQ(g.Value(), 3);
  g.Set(-1.5);
  EXPECT_TRUE(HasLine(r.Render(), "g -1.5"));
}

TEST(MetricsRegistryTest, EscapesLabelValuesAndFillsMissingOnes) {
  MetricsRegistry r;
  r.CounterFamily("c_total", "h", {"a", "b"}).With({"q\"b\\s\nn"}).Inc();
  EXPECT_TRUE(HasLine(r.Render(), "c_total{a=\"q\\\"b\\\\s\\nn\",b=\"\"} 1"));
}

TEST(MetricsRegistryTest, UnlabelledMetricHasNoBraces) {
  MetricsRegistry r;
  r.GaugeFamily("up", "h", {}).With({}).Set(1);
  EXPECT_TRUE(HasLine(r.Render(), "up 1"));
}

TEST(MetricsRegistryTest, ANameOfAnotherTypeOrAnInvalidNameIsAProgrammingError) {
  MetricsRegistry r;
  r.CounterFamily("taken_total", "h", {});
  EXPECT_THROW(r.GaugeFamily("taken_total", "h", {}), std::invalid_argument);
  EXPECT_THROW(r.GaugeFamily("no spaces", "h", {}), std::invalid_argument);
  EXPECT_THROW(r.GaugeFamily("bad_label", "h", {"not-a-label"}).With({"v"}), std::invalid_argument);
}

TEST(MetricsRegistryTest, ConcurrentUpdatesAreAllCounted) {
  MetricsRegistry r;
  auto& family = r.CounterFamily("c_total", "h", {"worker"});
  auto& histogram = r.HistogramFamily("h_seconds", "h", {}, ReconcileTimeBuckets()).With({});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) {
        family.With({std::to_string(i % 3)}).Inc();
        histogram.Observe(0.01);
        if (i % 100 == 0) (void)r.Render();
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(family.With({"0"}).Value() + family.With({"1"}).Value() + family.With({"2"}).Value(),
            4000);
  EXPECT_TRUE(HasLine(r.Render(), "h_seconds_count 4000"));
}

}  // namespace
}  // namespace rdmastack::runtime
