#pragma once
// The process's Prometheus metrics, kept in a prometheus-cpp registry and rendered in its text
// exposition format (version 0.0.4). This file only adapts prometheus-cpp's families to the
// label-values-in-order API the runtime uses (`family.With({"pool", "success"}).Inc()`).
//
// Handles returned by With() are stable references, safe to keep and to update from any thread.
// Registering a name that is not a valid metric name, or a name already registered with another
// type, is a programming error: prometheus-cpp throws std::invalid_argument.

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace rdmastack::runtime {

class Counter {
 public:
  explicit Counter(prometheus::Counter& metric) : metric_(metric) {}
  void Inc(double v = 1.0) { metric_.Increment(v); }
  double Value() const { return metric_.Value(); }

 private:
  prometheus::Counter& metric_;
};

class Gauge {
 public:
  explicit Gauge(prometheus::Gauge& metric) : metric_(metric) {}
  void Set(double v) { metric_.Set(v); }
  void Inc(double v = 1.0) { metric_.Increment(v); }
  void Dec(double v = 1.0) { metric_.Decrement(v); }
  double Value() const { return metric_.Value(); }

 private:
  prometheus::Gauge& metric_;
};

class Histogram {
 public:
  explicit Histogram(prometheus::Histogram& metric) : metric_(metric) {}
  void Observe(double v) { metric_.Observe(v); }

 private:
  prometheus::Histogram& metric_;
};

// controller-runtime's reconcile_time_seconds buckets (5 ms .. 60 s).
std::vector<double> ReconcileTimeBuckets();

namespace internal {
template <typename Metric>
struct Underlying;
template <>
struct Underlying<Counter> {
  using type = prometheus::Counter;
};
template <>
struct Underlying<Gauge> {
  using type = prometheus::Gauge;
};
template <>
struct Underlying<Histogram> {
  using type = prometheus::Histogram;
};
}  // namespace internal

// A metric name with its label names; each distinct label value tuple is one time series.
template <typename Metric>
class Family {
 public:
  using Underlying = typename internal::Underlying<Metric>::type;

  Family(prometheus::Family<Underlying>& family, std::vector<std::string> label_names,
         std::vector<double> buckets = {})
      : family_(family), label_names_(std::move(label_names)), buckets_(std::move(buckets)) {}

  // Values must be given in the order of the label names; missing ones are empty strings.
  Metric& With(std::vector<std::string> label_values) {
    label_values.resize(label_names_.size());
    std::lock_guard<std::mutex> l(mu_);
    auto& slot = series_[label_values];
    if (!slot) {
      prometheus::Labels labels;
      for (size_t i = 0; i < label_names_.size(); ++i) labels[label_names_[i]] = label_values[i];
      if constexpr (std::is_same_v<Metric, Histogram>) {
        slot = std::make_unique<Metric>(family_.Add(labels, buckets_));
      } else {
        slot = std::make_unique<Metric>(family_.Add(labels));
      }
    }
    return *slot;
  }

  const std::vector<std::string>& label_names() const { return label_names_; }

 private:
  prometheus::Family<Underlying>& family_;
  const std::vector<std::string> label_names_;
  const std::vector<double> buckets_;
  std::mutex mu_;
  // Our handles, by label values in declaration order; they point into family_'s series.
  std::map<std::vector<std::string>, std::unique_ptr<Metric>> series_;
};

// A family whose values are computed when /metrics is scraped (kube-state-metrics' model): read
// from caches at that moment, so a series disappears with the object it describes, and a standby
// with synced caches serves the same figures as the leader. Gauges, or counters that something
// else counts (a node's port counters, as its agent last reported them).
struct SampledSeries {
  std::vector<std::pair<std::string, std::string>> labels;
  double value = 0;
};
enum class SampledType { kGauge, kCounter };
struct SampledFamily {
  std::string name;
  std::string help;
  std::vector<SampledSeries> series;
  SampledType type = SampledType::kGauge;
};
using Sampler = std::function<std::vector<SampledFamily>()>;

class MetricsRegistry {
 public:
  MetricsRegistry() = default;
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  // Registering a name twice returns the existing family (the label names of the first call win).
  Family<Counter>& CounterFamily(const std::string& name, const std::string& help,
                                 std::vector<std::string> label_names);
  Family<Gauge>& GaugeFamily(const std::string& name, const std::string& help,
                             std::vector<std::string> label_names);
  Family<Histogram>& HistogramFamily(const std::string& name, const std::string& help,
                                     std::vector<std::string> label_names,
                                     std::vector<double> buckets);

  // Called on every Render(), outside the registry's lock; a sampler must be cheap and thread-safe.
  // Families it returns are rendered after the registered ones, as gauges or counters.
  void AddSampler(Sampler sampler);

  // The Prometheus text format (prometheus-cpp's TextSerializer).
  std::string Render() const;
  // The underlying registry, for anything that speaks prometheus-cpp directly.
  prometheus::Registry& registry() { return registry_; }

 private:
  template <typename Metric>
  Family<Metric>& GetOrCreate(std::map<std::string, std::unique_ptr<Family<Metric>>>& families,
                              const std::string& name, const std::string& help,
                              std::vector<std::string> label_names, std::vector<double> buckets);

  prometheus::Registry registry_;
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Family<Counter>>> counters_;
  std::map<std::string, std::unique_ptr<Family<Gauge>>> gauges_;
  std::map<std::string, std::unique_ptr<Family<Histogram>>> histograms_;
  std::vector<Sampler> samplers_;
};

}  // namespace rdmastack::runtime
