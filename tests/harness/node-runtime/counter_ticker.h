#pragma once
// A harness shortcut (docs/development.md "Simulated nodes"): on a real host the kernel moves an
// RDMA port's counters; a simulated node's sysfs is a copy of a fixture tree and nothing would
// move them. So the runtime does, for each node whose fixture says how fast: its counters.txt,
// which scripts/cluster.sh copies to <host root>/etc/rdmastack-fixture/counters.txt, one line per
// counter:
//   <ibdev> <port> <counter file name> <increase per second>
// The agent reads the files as it reads them on a real host; only their values move.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "tests/harness/node-runtime/node_table.h"

namespace rdmastack::sim {

// Where the runtime finds a node's rates, below its host root.
inline constexpr char kCounterRatesFile[] = "etc/rdmastack-fixture/counters.txt";

struct CounterRate {
  std::string device;
  int port = 0;
  std::string counter;
  double per_second = 0;
  friend bool operator==(const CounterRate&, const CounterRate&) = default;
};

// The lines of a counters.txt ('#' comments and blank lines skipped); `source` names it in errors.
StatusOr<std::vector<CounterRate>> ParseCounterRates(std::string_view text,
                                                     std::string_view source);

// Moves the counters of one host root.
class CounterTicker {
 public:
  CounterTicker(std::string host_root, std::vector<CounterRate> rates);
  // Sets each counter to the value its file held at the first tick plus its rate times `elapsed`
  // (from that first tick), so a fractional rate moves the counter without drift. A counter whose
  // file is missing or not a number is skipped and named in the error; the others still move.
  Status Tick(Clock::Duration elapsed);

  const std::string& host_root() const { return root_; }

 private:
  // The counter's file: ports/<n>/counters/<name>, else ports/<n>/hw_counters/<name>.
  std::string PathOf(const CounterRate& rate) const;

  std::string root_;
  std::vector<CounterRate> rates_;
  std::vector<std::optional<uint64_t>> start_;  // per rate, read at the first tick
};

// Ticks each ticker; the first failure of each is logged (a warning), later ones are not, so a
// fixture whose counters.txt names a missing port says so once.
void TickAll(std::vector<CounterTicker>& tickers, Clock::Duration elapsed,
             std::set<std::string>* warned);

// One ticker per node of `nodes` whose host root has a counters.txt; a file that does not parse
// is an error naming it.
StatusOr<std::vector<CounterTicker>> TickersFor(const NodeTable& nodes);

}  // namespace rdmastack::sim
