#include "operator/runtime/metrics.h"

#include <prometheus/text_serializer.h>

namespace rdmastack::runtime {

std::vector<double> ReconcileTimeBuckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1,  0.15, 0.2,  0.25, 0.3,  0.35, 0.4,  0.45, 0.5, 0.6,
          0.7,   0.8,  0.9,   1.0,  1.25, 1.5,  1.75, 2.0,  2.5,  3.0,  3.5,  4.0,  4.5, 5.0,
          6.0,   7.0,  8.0,   9.0,  10.0, 15.0, 20.0, 25.0, 30.0, 40.0, 50.0, 60.0};
}

namespace {

template <typename Metric>
auto& Build(prometheus::Registry& registry, const std::string& name, const std::string& help) {
  if constexpr (std::is_same_v<Metric, Counter>) {
    return prometheus::BuildCounter().Name(name).Help(help).Register(registry);
  } else if constexpr (std::is_same_v<Metric, Gauge>) {
    return prometheus::BuildGauge().Name(name).Help(help).Register(registry);
  } else {
    return prometheus::BuildHistogram().Name(name).Help(help).Register(registry);
  }
}

}  // namespace

template <typename Metric>
Family<Metric>& MetricsRegistry::GetOrCreate(
    std::map<std::string, std::unique_ptr<Family<Metric>>>& families, const std::string& name,
    const std::string& help, std::vector<std::string> label_names, std::vector<double> buckets) {
  std::lock_guard<std::mutex> l(mu_);
  auto& family = families[name];
  if (!family) {
    family = std::make_unique<Family<Metric>>(Build<Metric>(registry_, name, help),
                                              std::move(label_names), std::move(buckets));
  }
  return *family;
}

Family<Counter>& MetricsRegistry::CounterFamily(const std::string& name, const std::string& help,
                                                std::vector<std::string> label_names) {
  return GetOrCreate(counters_, name, help, std::move(label_names), {});
}

Family<Gauge>& MetricsRegistry::GaugeFamily(const std::string& name, const std::string& help,
                                            std::vector<std::string> label_names) {
  return GetOrCreate(gauges_, name, help, std::move(label_names), {});
}

Family<Histogram>& MetricsRegistry::HistogramFamily(const std::string& name,
                                                    const std::string& help,
                                                    std::vector<std::string> label_names,
                                                    std::vector<double> buckets) {
  return GetOrCreate(histograms_, name, help, std::move(label_names), std::move(buckets));
}

void MetricsRegistry::AddSampler(Sampler sampler) {
  std::lock_guard<std::mutex> l(mu_);
  samplers_.push_back(std::move(sampler));
}

namespace {

prometheus::MetricFamily ToFamily(SampledFamily sampled) {
  const bool counter = sampled.type == SampledType::kCounter;
  prometheus::MetricFamily family;
  family.name = std::move(sampled.name);
  family.help = std::move(sampled.help);
  family.type = counter ? prometheus::MetricType::Counter : prometheus::MetricType::Gauge;
  family.metric.reserve(sampled.series.size());
  for (SampledSeries& s : sampled.series) {
    prometheus::ClientMetric metric;
    metric.label.reserve(s.labels.size());
    for (auto& [name, value] : s.labels) {
      metric.label.push_back(prometheus::ClientMetric::Label{std::move(name), std::move(value)});
    }
    if (counter) {
      metric.counter.value = s.value;
    } else {
      metric.gauge.value = s.value;
    }
    family.metric.push_back(std::move(metric));
  }
  return family;
}

}  // namespace

std::string MetricsRegistry::Render() const {
  std::vector<prometheus::MetricFamily> families = registry_.Collect();
  std::vector<Sampler> samplers;
  {
    std::lock_guard<std::mutex> l(mu_);
    samplers = samplers_;
  }
  for (const Sampler& sampler : samplers) {
    for (SampledFamily& sampled : sampler()) {
      if (sampled.series.empty()) continue;
      families.push_back(ToFamily(std::move(sampled)));
    }
  }
  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace rdmastack::runtime
