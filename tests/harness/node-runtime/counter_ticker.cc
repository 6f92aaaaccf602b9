#include "tests/harness/node-runtime/counter_ticker.h"

#include <spdlog/spdlog.h>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "base/atomic_file.h"

namespace rdmastack::sim {
namespace {

namespace fs = std::filesystem;

StatusOr<CounterRate> ParseLine(const std::string& line) {
  std::istringstream in(line);
  CounterRate r;
  std::string extra;
  if (!(in >> r.device >> r.port >> r.counter >> r.per_second) || (in >> extra)) {
    return InvalidArgumentError("want '<ibdev> <port> <counter> <per second>', got '" + line + "'");
  }
  if (r.port < 1 || r.port > 255 || !(r.per_second >= 0) || std::isinf(r.per_second) ||
      r.counter.find('/') != std::string::npos || r.device.find('/') != std::string::npos) {
    return InvalidArgumentError("not a port, counter and rate: '" + line + "'");
  }
  return r;
}

std::optional<uint64_t> ReadValue(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!std::getline(in, text)) return std::nullopt;
  uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

uint64_t Add(uint64_t start, double increase) {
  const double sum = static_cast<double>(start) + std::floor(increase);
  if (sum >= static_cast<double>(std::numeric_limits<uint64_t>::max())) {
    return std::numeric_limits<uint64_t>::max();
  }
  return start + static_cast<uint64_t>(std::floor(increase));
}

}  // namespace

StatusOr<std::vector<CounterRate>> ParseCounterRates(std::string_view text,
                                                     std::string_view source) {
  std::vector<CounterRate> out;
  std::istringstream in{std::string(text)};
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto rate = ParseLine(line);
    if (!rate.ok()) {
      return InvalidArgumentError(std::string(source) + " line " + std::to_string(number) + ": " +
                                  rate.status().message());
    }
    out.push_back(std::move(*rate));
  }
  return out;
}

CounterTicker::CounterTicker(std::string host_root, std::vector<CounterRate> rates)
    : root_(std::move(host_root)), rates_(std::move(rates)), start_(rates_.size()) {}

std::string CounterTicker::PathOf(const CounterRate& rate) const {
  const std::string port =
      root_ + "/sys/class/infiniband/" + rate.device + "/ports/" + std::to_string(rate.port);
  const std::string counters = port + "/counters/" + rate.counter;
  return fs::exists(counters) ? counters : port + "/hw_counters/" + rate.counter;
}

Status CounterTicker::Tick(Clock::Duration elapsed) {
  const double seconds = std::chrono::duration<double>(elapsed).count();
  std::string failed;
  for (size_t i = 0; i < rates_.size(); ++i) {
    const std::string path = PathOf(rates_[i]);
    if (!start_[i]) start_[i] = ReadValue(path);
    std::error_code ec;
    // sysfs-shaped trees reach a port through symlinks; the atomic writer opens its directory
    // without following any, so it gets the real one.
    const fs::path dir = fs::canonical(fs::path(path).parent_path(), ec);
    Status written =
        !start_[i] || ec
            ? NotFoundError("no counter there")
            : WriteFileAtomically(
                  (dir / fs::path(path).filename()).string(),
                  std::to_string(Add(*start_[i], rates_[i].per_second * seconds)) + "\n");
    if (!written.ok())
      failed += (failed.empty() ? "" : ", ") + path + " (" + written.message() + ")";
  }
  if (!failed.empty()) return UnavailableError("counters not moved: " + failed);
  return OkStatus();
}

void TickAll(std::vector<CounterTicker>& tickers, Clock::Duration elapsed,
             std::set<std::string>* warned) {
  for (CounterTicker& t : tickers) {
    const Status s = t.Tick(elapsed);
    if (!s.ok() && warned->insert(t.host_root()).second) {
      spdlog::warn("port counters of {}: {} (said once)", t.host_root(), s.message());
    }
  }
}

StatusOr<std::vector<CounterTicker>> TickersFor(const NodeTable& nodes) {
  std::vector<CounterTicker> out;
  for (const auto& [name, node] : nodes) {
    const std::string file = node.host_root + "/" + kCounterRatesFile;
    std::ifstream in(file);
    if (!in) continue;  // a fixture without counters.txt: nothing moves
    std::stringstream text;
    text << in.rdbuf();
    auto rates = ParseCounterRates(text.str(), file);
    if (!rates.ok()) return rates.status();
    out.emplace_back(node.host_root, std::move(*rates));
  }
  return out;
}

}  // namespace rdmastack::sim
