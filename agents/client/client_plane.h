#pragma once
// One pass of the client data plane, repeated by `rdmastack-client run` every --interval:
//   1. probe the host root and judge it with the node agent's checks (node_plan.h);
//   2. with --load-peermem, load nvidia_peermem when GPU-direct needs it and it is installed;
//   3. read the pool's endpoints file;
//   4. install cufile.json, cuobj.json, endpoints.json, client.env and lib/ (only what changed;
//      with no endpoints, or none readable, the last written files stay);
//   5. check that the pool answers, and write <state-dir>/state.json.
// Everything it touches outside the process comes in through PlaneDeps, so tests run passes
// against fixture trees, a fake modprobe and a loopback HTTP server.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agents/client/command_runner.h"
#include "agents/client/endpoints.h"
#include "agents/client/installer.h"
#include "agents/client/node_plan.h"
#include "agents/client/options.h"
#include "agents/client/state.h"
#include "base/clock.h"
#include "lib/s3/http.h"
#include "node/probe/device_prober.h"

namespace rdmastack::client {

// After a failed modprobe the next try waits this long: a module that does not load (missing
// PeerDirect API, a signature policy) would otherwise be retried and logged every pass.
inline constexpr std::chrono::seconds kModprobeRetryDelay{60};
inline constexpr std::chrono::seconds kModprobeTimeout{20};

struct PlaneDeps {
  std::function<StatusOr<std::unique_ptr<node::DeviceProber>>()> make_prober;
  s3::HttpTransport* http = nullptr;
  // An https pool's transport, verifying against these options; null: `http` serves both.
  std::function<s3::HttpTransport*(const s3::TlsOptions&)> https;
  const Clock* clock = nullptr;
  CommandRunner run_command;
};

class ClientPlane {
 public:
  ClientPlane(RunOptions options, PlaneDeps deps);

  // One pass; returns the state it wrote to <state-dir>/state.json.
  ClientState RunPass();

 private:
  node::NodeFacts Probe();
  void MaybeLoadPeerMem(node::NodeFacts* facts, NodePlan* plan);
  Status Install(const NodePlan& plan, const PoolEndpoints& pool);
  void CheckPool(const PoolEndpoints& pool, const NodePlan& plan, ClientState* state);
  void WriteState(const ClientState& state);

  RunOptions options_;
  PlaneDeps deps_;
  Installer installer_;
  size_t next_endpoint_ = 0;  // rotation through pools larger than kMaxEndpointsPerPass
  bool peermem_loaded_by_client_ = false;
  bool library_digest_mismatch_ = false;  // ... because its bytes are not the pinned ones
  bool library_refused_ = false;  // the last Install failed on the library image (LibraryRefused)
  std::optional<Clock::TimePoint> last_modprobe_failure_;
  std::string last_peermem_note_;
  std::optional<ClientState> last_state_;
  std::string last_state_write_error_;
  std::vector<rails::RailNetwork> networks_;  // the pool's, as last read
};

}  // namespace rdmastack::client
