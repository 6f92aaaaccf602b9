#pragma once
// The operator's AgentHub: a TLS-only gRPC server for AgentHub.Connect (agents/proto), the
// certificates it serves with (hub_certificates.h), the identity check of every agent
// (admission.h, agent_authenticator.h) and the streams (agent_stream.h). What agents say goes to
// an AgentEventSink; requirements come in through RequirementsPublisher (agent_events.h).
//
// Wiring (operator main):
//   agenthub::AgentHubOptions o;            // listen address, agent ServiceAccount, cert names...
//   agenthub::AgentHub hub(api_client,      // NOT the leader-fenced one: TokenReviews are creates
//                          manager.client() /* fenced: Secret/ConfigMap writes */,
//                          manager.events(), manager.metrics(), sink, RealClock::Instance(), o);
//   RDMASTACK_RETURN_IF_ERROR(hub.Start());  // certificates, then listening
//   ... controllers call hub.Publish(node, requirements) / hub.Forget(node) ...
//   hub.Stop();                              // ends streams (UNAVAILABLE), stops serving
// Start() creates the generated Secret and the CA ConfigMap when they are missing, so on a
// cluster without them it succeeds only where the writer may write (the leader). Start() once per
// object. RBAC the operator needs: create tokenreviews; get pods in the agent namespace; get,
// create, update secrets and configmaps in its own namespace; create events.

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "operator/k8s/client.h"
#include "operator/runtime/event_recorder.h"
#include "operator/runtime/metrics.h"
#include "servers/agenthub/admission.h"
#include "servers/agenthub/agent_authenticator.h"
#include "servers/agenthub/agent_events.h"
#include "servers/agenthub/agent_stream.h"
#include "servers/agenthub/hub_certificates.h"
#include "servers/agenthub/hub_core.h"
#include "servers/agenthub/hub_listener.h"
#include "servers/agenthub/memory_trim.h"
#include "servers/agenthub/token_reviewer.h"
#include "servers/agenthub/worker_pool.h"

namespace rdmastack::agenthub {

struct AgentHubOptions {
  // host:port to listen on (":port" = every address); port 0 picks a free port (see port()).
  std::string listen_address = "0.0.0.0:9443";
  // The agent DaemonSet's ServiceAccount and the token audience.
  AgentPolicy policy;
  HubStreamOptions streams;
  HubCertificateOptions certificates;
  TokenReviewCacheOptions token_cache;
  // Largest message the hub accepts from an agent (a report of a large host is ~100 KiB). gRPC
  // buffers a message whole before the hub sees it, so this is also what a stream that has not
  // authenticated can make the hub hold (two streams per connection).
  int max_message_bytes = 1024 * 1024;
  // Connections open at once, in all and from one peer address, counted from the TCP accept
  // (hub_listener.h): one more is closed at once, before its TLS handshake. Each connection holds
  // about 90 KiB (docs/agenthub.md "Where the bytes go"), so max_connections is what many peers
  // together can make the hub hold, and max_connections_per_address what one pod can. An agent
  // needs one connection (two while it reconnects), and agents run on the host network, one per
  // node: one address each.
  runtime::ConnectionLimits connections{.max_connections = 10240, .max_connections_per_address = 8};
  // gRPC's ResourceQuota: the memory gRPC's own buffers may take (TCP reads, HTTP/2 frames and
  // messages, calls), all connections together. Near it gRPC reads less and grants smaller
  // flow-control windows; once it is used up, gRPC closes connections without a stream, then
  // cancels streams. OpenSSL's per-connection buffers are not counted there: the connection limits
  // bound those. Its thread limit is not set: that governs gRPC's synchronous server, which the
  // hub (callback reactors only) does not have.
  size_t memory_quota_bytes = 256u << 20;
  // A peer must finish its TLS handshake this soon (gRPC's default is 120 s), and a connection
  // without a stream is closed after connection_idle: neither a slow handshake nor a connection
  // that never opens a stream holds the hub's memory for long.
  std::chrono::milliseconds handshake_timeout{10'000};
  std::chrono::milliseconds connection_idle{30'000};
  // How often gRPC re-reads the identity file for a new certificate.
  unsigned int certificate_refresh_seconds = 10;
  int auth_threads = 4;
  size_t auth_queue = 10'000;
  // The hub pings an agent silent this long (and drops it when the ping is not answered within
  // keepalive_timeout): a node that lost power leaves no half-open stream behind.
  std::chrono::milliseconds keepalive_time{60'000};
  std::chrono::milliseconds keepalive_timeout{20'000};
  // Largest TLS frame gRPC's frame protector makes (GRPC_ARG_TSI_MAX_FRAME_SIZE); its buffer is
  // allocated per connection at this size (docs/agenthub.md "Where the bytes go": 4 KiB saves
  // 12 KiB per connection; agents send heartbeats of a few dozen bytes). 0 = gRPC's default
  // (16 KiB); else 1024..16384.
  int tsi_max_frame_size = 4096;
  // glibc's M_MMAP_THRESHOLD, set by Start() for the whole process: allocations of at least this
  // size that need new memory get their own mapping, given back at once when freed, and only
  // their touched pages are resident. Each TLS connection holds four ~17 KiB buffers (OpenSSL's
  // BIO pair and record buffers). 0 leaves glibc's dynamic threshold; else 4096..33554432.
  size_t malloc_mmap_threshold_bytes = 16 * 1024;
  // malloc_trim after connections churn (memory_trim.h).
  MemoryTrimOptions memory_trim;
  // Abseil's Mutex deadlock detection, a debugging aid that Debian's Abseil (built without
  // NDEBUG) leaves on: every lock gRPC takes then updates a global lock-order graph under a
  // global lock. It was ~16% of the hub's CPU with agents heartbeating (docs/agenthub.md "Where
  // the CPU goes"). false: Start() turns it off for the whole process.
  bool mutex_deadlock_detection = false;
  // gRPC's HTTP/2 bandwidth-delay probe (GRPC_ARG_HTTP2_BDP_PROBE): with it, a heartbeat a few
  // dozen bytes long after seconds of silence makes the hub send a PING, read its ack and arm a
  // timer, which more than doubled the hub's thread wakeups. It sizes flow-control windows for
  // bulk transfers; agents send at most a ~100 KiB report a few times a minute.
  bool http2_bdp_probe = false;
  // Integer gRPC channel arguments set after the hub's own (so they win), for measuring a
  // setting without a rebuild (agenthub-bench-hub's RDMASTACK_AGENTHUB_BENCH_GRPC_ARGS). Not
  // reachable from the operator's flags.
  std::vector<std::pair<std::string, int>> extra_channel_args;
};

// Checks options a person sets (through operator flags); the error names the option.
Status ValidateAgentHubOptions(const AgentHubOptions& options);

class AgentHub final : public RequirementsPublisher {
 public:
  // `reader`: TokenReviews and reads (Pods, Secrets, ConfigMaps). `writer`: the Secret and
  // ConfigMap writes (the leader-fenced client). Events about refused agents go to `events`.
  AgentHub(k8s::Client& reader, k8s::Client& writer, runtime::EventRecorder& events,
           runtime::MetricsRegistry& metrics, AgentEventSink& sink, Clock& clock,
           AgentHubOptions options);
  ~AgentHub() override;

  // Certificates first (an error when there is nothing to serve with), then the server. Returns
  // once it listens.
  Status Start();
  // Ends every stream with UNAVAILABLE, stops the server, the workers and the certificate
  // checks. Idempotent.
  void Stop();

  void Publish(const std::string& node_name, const agent::v1::Requirements& requirements) override;
  void Forget(const std::string& node_name) override;

  int port() const { return port_; }
  // Connections gRPC holds now (agents' and any other peer's; hub_listener.h).
  size_t open_connections() { return listener_.open_connections(); }
  size_t connected_agents() const { return core_.connected(); }
  // Hellos waiting for an authentication thread; whether Stop() has begun.
  size_t queued_authentications() const { return core_.queued_authentications(); }
  bool shutting_down() const { return core_.ShuttingDown(); }
  const HubCertificates& certificates() const { return certificates_; }

 private:
  const AgentHubOptions options_;
  HubMetrics metrics_;
  HubCertificates certificates_;
  ApiTokenReviewer api_reviewer_;
  CachingTokenReviewer reviewer_;
  AgentAuthenticator authenticator_;
  WorkerPool pool_;
  HubCore core_;
  AgentHubService service_;
  HubListener listener_;
  std::shared_ptr<grpc::experimental::CertificateProviderInterface> provider_;
  std::unique_ptr<grpc::Server> server_;
  MemoryTrimmer trimmer_;
  int port_ = 0;
  bool stopped_ = false;
};

}  // namespace rdmastack::agenthub
