#pragma once
// Startup, readiness and liveness probes: what a container's probe asks (parsed from the pod spec
// with the API's defaults) and how consecutive results become the probe's verdict, as the
// kubelet's prober worker decides it.

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "operator/k8s/json_object.h"

namespace rdmastack::sim {

enum class ProbeType { kStartup, kReadiness, kLiveness };
enum class ProbeAction { kExec, kHttpGet, kTcpSocket };

struct ProbeSpec {
  ProbeAction action = ProbeAction::kTcpSocket;
  std::vector<std::string> command;  // exec
  std::string scheme = "HTTP";       // httpGet: HTTP or HTTPS (certificate not verified)
  std::string host;                  // httpGet/tcpSocket; empty = the pod's IP
  int port = 0;
  std::string path = "/";
  std::vector<std::pair<std::string, std::string>> headers;
  std::chrono::seconds initial_delay{0};
  std::chrono::seconds period{10};
  std::chrono::seconds timeout{1};
  int success_threshold = 1;
  int failure_threshold = 3;
};

// `probe` is e.g. container.readinessProbe; named ports resolve through container.ports.
StatusOr<ProbeSpec> ParseProbe(const k8s::JsonObject& probe, const k8s::JsonObject& container);

enum class ProbeResult { kUnknown, kSuccess, kFailure };

// The verdict of one probe of one container run. Readiness starts failed, liveness succeeded,
// startup unknown; the verdict flips only after `threshold` equal results in a row.
class ProbeTracker {
 public:
  ProbeTracker(ProbeType type, ProbeSpec spec);
  // A new container run: back to the initial verdict, first probe after initialDelaySeconds.
  void Reset(Clock::TimePoint container_started);
  bool Due(Clock::TimePoint now) const { return now >= next_; }
  Clock::TimePoint next() const { return next_; }
  // Records one probe outcome at `now`; returns the verdict.
  ProbeResult Record(bool success, Clock::TimePoint now);
  ProbeResult verdict() const { return verdict_; }
  const ProbeSpec& spec() const { return spec_; }
  ProbeType type() const { return type_; }

 private:
  ProbeType type_;
  ProbeSpec spec_;
  ProbeResult verdict_;
  std::optional<bool> last_;
  int run_ = 0;
  Clock::TimePoint next_{};
};

}  // namespace rdmastack::sim
