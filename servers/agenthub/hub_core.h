#pragma once
// The hub's shared state behind every stream: which stream speaks for which node, the latest
// requirements per node, authentication on the worker pool, refusals (metric + Warning event),
// and the deadline for Hello. Streams (agent_stream.h) call in; the controllers reach it through
// RequirementsPublisher (agent_hub.h).
//
// Locking: HubCore::mu_ may be held while a stream's own mutex is taken, never the reverse; the
// sink is called with a stream's mutex held (so that a replaced stream's last event comes before
// the new stream's first), which is why sinks must not block.

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_set>

#include "agents/proto/agenthub.pb.h"
#include "base/clock.h"
#include "operator/runtime/event_recorder.h"
#include "operator/runtime/metrics.h"
#include "servers/agenthub/address_throttle.h"
#include "servers/agenthub/admission.h"
#include "servers/agenthub/agent_authenticator.h"
#include "servers/agenthub/agent_events.h"
#include "servers/agenthub/worker_pool.h"

namespace rdmastack::agenthub {

class AgentStream;

struct HubStreamOptions {
  int heartbeat_seconds = 10;   // sent in every Ack
  int reports_per_minute = 12;  // per stream (token bucket, burst of the same size)
  Clock::Duration hello_timeout = std::chrono::seconds(10);
  size_t max_queued_messages = 64;  // hub->agent messages waiting on a stream that does not read
  AddressLimits per_address;        // what one peer address may have reviewed (address_throttle.h)
};

struct HubMetrics {
  explicit HubMetrics(runtime::MetricsRegistry& registry);
  runtime::Gauge& connected;                   // rdmastack_agenthub_connected_agents
  runtime::Family<runtime::Counter>& refused;  // rdmastack_agenthub_streams_refused_total{reason}
  runtime::Counter& reports;                   // rdmastack_agenthub_reports_received_total
  runtime::Counter& token_reviews;             // rdmastack_agenthub_token_reviews_total
};

class HubCore {
 public:
  HubCore(AgentEventSink& sink, runtime::EventRecorder& events, HubMetrics& metrics, Clock& clock,
          HubStreamOptions options, WorkerPool& pool, AgentAuthenticator& authenticator);
  ~HubCore();

  // Starts the Hello deadline sweeper; Shutdown() ends every stream and the sweeper.
  void Start();
  void Shutdown();

  // ---- for streams ----
  void AddPending(AgentStream* stream);
  void HelloReceived(AgentStream* stream);
  // Runs the authenticator on the pool and hands the decision to stream->OnAuthenticated; when
  // the pool is full the stream is refused at once (UNAVAILABLE).
  void Authenticate(AgentStream* stream, const agent::v1::Hello& hello);
  // Makes `stream` the one for its node: an earlier stream for the node is superseded first.
  void Accept(AgentStream* stream);
  // The stream is done: forget it (and tell the sink, if it was the node's current stream).
  void Remove(AgentStream* stream);
  // A refused stream: metric, log and (for UNAUTHENTICATED / PERMISSION_DENIED) a Warning event
  // on the claimed Node.
  void RecordRefusal(const std::string& node_name, const AdmissionDecision& decision);

  // ---- for the controllers ----
  void Publish(const std::string& node_name, const agent::v1::Requirements& requirements);
  void Forget(const std::string& node_name);
  size_t connected() const;

  AgentEventSink& sink() { return sink_; }
  HubMetrics& metrics() { return metrics_; }
  Clock& clock() { return clock_; }
  const HubStreamOptions& options() const { return options_; }

  bool ShuttingDown() const;
  size_t queued_authentications() const { return pool_.queued(); }

 private:
  void SweepLoop();

  AgentEventSink& sink_;
  runtime::EventRecorder& events_;
  HubMetrics& metrics_;
  Clock& clock_;
  const HubStreamOptions options_;
  WorkerPool& pool_;
  AgentAuthenticator& authenticator_;
  AddressThrottle throttle_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool shutting_down_ = false;
  std::map<std::string, AgentStream*> streams_;      // node -> current stream
  std::map<std::string, std::string> requirements_;  // node -> serialized Requirements
  std::unordered_set<AgentStream*> pending_;         // waiting for Hello
  std::thread sweeper_;
};

}  // namespace rdmastack::agenthub
