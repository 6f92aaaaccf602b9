#pragma once
// A small Prometheus registry: counters, gauges and histograms with labels, rendered in the text
// exposition format (version 0.0.4). Metric handles are stable references, safe to keep and to
// update from any thread.

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace rdmastack::runtime {

class Counter {
 public:
  void Inc(double v = 1.0) { value_.fetch_add(v, std::memory_order_relaxed); }
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0.0};
};

class Gauge {
 public:
  void Set(double v) { value_.store(v, std::memory_order_relaxed); }
  void Inc(double v = 1.0) { value_.fetch_add(v, std::memory_order_relaxed); }
  void Dec(double v = 1.0) { value_.fetch_sub(v, std::memory_order_relaxed); }
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0.0};
};

class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);
  void Observe(double v);
  struct Snapshot {
    std::vector<double> upper_bounds;
    std::vector<uint64_t> cumulative_counts;  // one per bound, then +Inf
    double sum = 0;
    uint64_t count = 0;
  };
  Snapshot Read() const;

 private:
  const std::vector<double> upper_bounds_;
  mutable std::mutex mu_;
  std::vector<uint64_t> counts_;  // per bucket, last one is +Inf
  double sum_ = 0;
};

// controller-runtime's reconcile_time_seconds buckets (5 ms .. 60 s).
std::vector<double> ReconcileTimeBuckets();

// A metric name with its label names; each distinct label value tuple is one time series.
template <typename Metric>
class Family {
 public:
  Family(std::vector<std::string> label_names, std::vector<double> buckets = {})
      : label_names_(std::move(label_names)), buckets_(std::move(buckets)) {}

  // Values must be given in the order of the label names; missing ones are empty strings.
  Metric& With(std::vector<std::string> label_values) {
    label_values.resize(label_names_.size());
    std::lock_guard<std::mutex> l(mu_);
    auto& slot = series_[label_values];
    if (!slot) slot = MakeMetric();
    return *slot;
  }

  template <typename Fn>
  void ForEach(Fn&& fn) const {
    std::lock_guard<std::mutex> l(mu_);
    for (const auto& [values, metric] : series_) fn(values, *metric);
  }
  const std::vector<std::string>& label_names() const { return label_names_; }

 private:
  std::unique_ptr<Metric> MakeMetric() const {
    if constexpr (std::is_same_v<Metric, Histogram>) {
      return std::make_unique<Histogram>(buckets_);
    } else {
      return std::make_unique<Metric>();
    }
  }

  const std::vector<std::string> label_names_;
  const std::vector<double> buckets_;
  mutable std::mutex mu_;
  std::map<std::vector<std::string>, std::unique_ptr<Metric>> series_;
};

class MetricsRegistry {
 public:
  // Registering a name twice returns the existing family (the label names of the first call win).
  Family<Counter>& CounterFamily(const std::string& name, const std::string& help,
                                 std::vector<std::string> label_names);
  Family<Gauge>& GaugeFamily(const std::string& name, const std::string& help,
                             std::vector<std::string> label_names);
  Family<Histogram>& HistogramFamily(const std::string& name, const std::string& help,
                                     std::vector<std::string> label_names,
                                     std::vector<double> buckets);

  // Prometheus text format, families sorted by name.
  std::string Render() const;

 private:
  struct Entry {
    std::string help;
    std::unique_ptr<Family<Counter>> counter;
    std::unique_ptr<Family<Gauge>> gauge;
    std::unique_ptr<Family<Histogram>> histogram;
  };
  template <typename Metric>
  Family<Metric>& GetOrCreate(std::unique_ptr<Family<Metric>> Entry::*slot, const std::string& name,
                              const std::string& help, std::vector<std::string> label_names,
                              std::vector<double> buckets);

  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;
};

// Escapes a label value for the text format (backslash, double quote, newline).
std::string EscapeLabelValue(const std::string& value);

}  // namespace rdmastack::runtime
