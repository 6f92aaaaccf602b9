#include "operator/runtime/metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace rdmastack::runtime {

Histogram::Histogram(std::vector<double> upper_bounds)
    : upper_bounds_(std::move(upper_bounds)), counts_(upper_bounds_.size() + 1, 0) {}

void Histogram::Observe(double v) {
  const auto it = std::lower_bound(upper_bounds_.begin(), upper_bounds_.end(), v);
  const size_t bucket = static_cast<size_t>(it - upper_bounds_.begin());
  std::lock_guard<std::mutex> l(mu_);
  ++counts_[bucket];
  sum_ += v;
}

Histogram::Snapshot Histogram::Read() const {
  Snapshot s;
  s.upper_bounds = upper_bounds_;
  std::lock_guard<std::mutex> l(mu_);
  uint64_t running = 0;
  for (uint64_t c : counts_) {
    running += c;
    s.cumulative_counts.push_back(running);
  }
  s.sum = sum_;
  s.count = running;
  return s;
}

std::vector<double> ReconcileTimeBuckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1,  0.15, 0.2,  0.25, 0.3,  0.35, 0.4,  0.45, 0.5, 0.6,
          0.7,   0.8,  0.9,   1.0,  1.25, 1.5,  1.75, 2.0,  2.5,  3.0,  3.5,  4.0,  4.5, 5.0,
          6.0,   7.0,  8.0,   9.0,  10.0, 15.0, 20.0, 25.0, 30.0, 40.0, 50.0, 60.0};
}

template <typename Metric>
Family<Metric>& MetricsRegistry::GetOrCreate(std::unique_ptr<Family<Metric>> Entry::*slot,
                                             const std::string& name, const std::string& help,
                                             std::vector<std::string> label_names,
                                             std::vector<double> buckets) {
  std::lock_guard<std::mutex> l(mu_);
  Entry& e = entries_[name];
  auto& family = e.*slot;
  if (!family) {
    e.help = help;
    family = std::make_unique<Family<Metric>>(std::move(label_names), std::move(buckets));
  }
  return *family;
}

Family<Counter>& MetricsRegistry::CounterFamily(const std::string& name, const std::string& help,
                                                std::vector<std::string> label_names) {
  return GetOrCreate(&Entry::counter, name, help, std::move(label_names), {});
}

Family<Gauge>& MetricsRegistry::GaugeFamily(const std::string& name, const std::string& help,
                                            std::vector<std::string> label_names) {
  return GetOrCreate(&Entry::gauge, name, help, std::move(label_names), {});
}

Family<Histogram>& MetricsRegistry::HistogramFamily(const std::string& name,
                                                    const std::string& help,
                                                    std::vector<std::string> label_names,
                                                    std::vector<double> buckets) {
  return GetOrCreate(&Entry::histogram, name, help, std::move(label_names), std::move(buckets));
}

std::string EscapeLabelValue(const std::string& value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

std::string FormatValue(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (std::isnan(v)) return "NaN";
  return fmt::format("{}", v);
}

// {a="1",b="2"} plus an optional extra pair (the histogram's le); empty when there are no labels.
std::string LabelSet(const std::vector<std::string>& names, const std::vector<std::string>& values,
                     const std::string& extra_name = "", const std::string& extra_value = "") {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += out.empty() ? "{" : ",";
    out += fmt::format("{}=\"{}\"", names[i], EscapeLabelValue(values[i]));
  }
  if (!extra_name.empty()) {
    out += out.empty() ? "{" : ",";
    out += fmt::format("{}=\"{}\"", extra_name, extra_value);
  }
  if (!out.empty()) out += "}";
  return out;
}

template <typename Scalar>
void RenderScalars(const std::string& name, const Family<Scalar>& family, std::string& out) {
  family.ForEach([&](const std::vector<std::string>& values, const Scalar& m) {
    out += fmt::format("{}{} {}\n", name, LabelSet(family.label_names(), values),
                       FormatValue(m.Value()));
  });
}

void RenderHistograms(const std::string& name, const Family<Histogram>& family, std::string& out) {
  const auto& names = family.label_names();
  family.ForEach([&](const std::vector<std::string>& values, const Histogram& h) {
    const Histogram::Snapshot s = h.Read();
    for (size_t i = 0; i < s.upper_bounds.size(); ++i) {
      out += fmt::format("{}_bucket{} {}\n", name,
                         LabelSet(names, values, "le", FormatValue(s.upper_bounds[i])),
                         s.cumulative_counts[i]);
    }
    out += fmt::format("{}_bucket{} {}\n", name, LabelSet(names, values, "le", "+Inf"), s.count);
    out += fmt::format("{}_sum{} {}\n", name, LabelSet(names, values), FormatValue(s.sum));
    out += fmt::format("{}_count{} {}\n", name, LabelSet(names, values), s.count);
  });
}

}  // namespace

std::string MetricsRegistry::Render() const {
  std::lock_guard<std::mutex> l(mu_);
  std::string out;
  for (const auto& [name, e] : entries_) {
    const char* type = e.counter ? "counter" : e.gauge ? "gauge" : "histogram";
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, e.help, name, type);
    if (e.counter) RenderScalars(name, *e.counter, out);
    if (e.gauge) RenderScalars(name, *e.gauge, out);
    if (e.histogram) RenderHistograms(name, *e.histogram, out);
  }
  return out;
}

}  // namespace rdmastack::runtime
