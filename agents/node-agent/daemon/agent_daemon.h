#pragma once
// `rdmastack-agent run`: the client side of AgentHub.Connect. It dials the operator over TLS,
// says Hello (node name + ServiceAccount token read from a file at every connect, since tokens
// rotate), sends a full report on connect and whenever the report's content hash changes,
// heartbeats at the interval the hub asks for, re-probes on a period and on command, and
// reconnects with jittered exponential backoff.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "agents/node-agent/daemon/backoff.h"
#include "agents/proto/agenthub.pb.h"
#include "base/clock.h"
#include "base/status.h"

namespace rdmastack::agent {

// What one probe produced: the report, sent when its content hash changes, and the ports'
// counters, sent apart when they moved (agenthub.proto, PortCounters).
struct ProbeResult {
  agent::v1::NodeReport report;
  agent::v1::PortCounters counters;
};

// Probes for the requirements the hub sent (nullopt before the first).
class ReportSource {
 public:
  virtual ~ReportSource() = default;
  virtual ProbeResult Build(const std::optional<agent::v1::Requirements>& requirements) = 0;
};

struct DaemonOptions {
  std::string hub_address;  // host:port
  std::string ca_file;      // PEM bundle that signs the hub's certificate
  std::string
      tls_server_name;     // override for the certificate name check ("" = host of hub_address)
  std::string token_file;  // bound ServiceAccount token
  std::string node_name;
  std::chrono::milliseconds probe_interval{60'000};
  std::chrono::milliseconds default_heartbeat{10'000};  // until the hub's Ack says otherwise
  // On a first connection the hub follows its Ack with this node's requirements; the first report
  // waits for them (this long at most), so that it is not a report against no requirements that
  // the next one replaces a moment later (two status writes where one does).
  std::chrono::milliseconds requirements_wait{5'000};
  BackoffPolicy backoff;
};

// Counters for tests and logs.
struct DaemonStats {
  std::atomic<int> connects{0};
  std::atomic<int> reports_sent{0};
  std::atomic<int> counters_sent{0};
  std::atomic<int> heartbeats_sent{0};
  std::atomic<int> probes{0};
};

// What the agent answers to a hub command (sent after the re-probe every command triggers). Says
// what it really did: a command it cannot carry out is ok=false with the reason.
agent::v1::CommandResult AnswerCommand(const agent::v1::Command& command);

class AgentDaemon {
 public:
  AgentDaemon(DaemonOptions options, ReportSource* source, Clock* clock);
  ~AgentDaemon();

  // Runs until Stop(). Returns an error only for configuration problems (unreadable CA file).
  Status Run();
  void Stop();
  // Ask for a re-probe now (same as the hub's REPROBE command).
  void RequestReprobe();
  const DaemonStats& stats() const { return stats_; }

 private:
  class Session;
  Status RunSession(const std::string& ca_pem);
  // Sends what of `probe` this session's hub has not had: the report when its hash moved, then
  // the counters when they moved. False when a write failed.
  bool SendProbe(const std::function<bool(const agent::v1::AgentMessage&)>& write,
                 ProbeResult* probe, std::string* sent_hash, std::string* sent_counters);

  DaemonOptions options_;
  ReportSource* source_;
  Clock* clock_;
  Backoff backoff_;
  DaemonStats stats_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool reprobe_ = false;
  std::optional<agent::v1::Requirements> requirements_;
  std::function<void()> cancel_session_;    // guarded by mu_
  std::atomic<bool> abort_connect_{false};  // Stop() during a connect or handshake
};

}  // namespace rdmastack::agent
