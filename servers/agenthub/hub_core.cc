#include "servers/agenthub/hub_core.h"

#include <spdlog/spdlog.h>

#include "servers/agenthub/admission.h"
#include "servers/agenthub/agent_stream.h"

namespace rdmastack::agenthub {

HubMetrics::HubMetrics(runtime::MetricsRegistry& registry)
    : connected(registry
                    .GaugeFamily("rdmastack_agenthub_connected_agents",
                                 "Agents with an accepted AgentHub stream.", {})
                    .With({})),
      refused(registry.CounterFamily(
          "rdmastack_agenthub_streams_refused_total",
          "AgentHub streams ended by the hub for a fault of the agent or the API, by reason "
          "(docs/troubleshooting.md lists them).",
          {"reason"})),
      reports(registry
                  .CounterFamily("rdmastack_agenthub_reports_received_total",
                                 "Node reports received on accepted AgentHub streams.", {})
                  .With({})),
      token_reviews(registry
                        .CounterFamily("rdmastack_agenthub_token_reviews_total",
                                       "TokenReviews the hub sent to the API server (cache "
                                       "misses).",
                                       {})
                        .With({})) {}

HubCore::HubCore(AgentEventSink& sink, runtime::EventRecorder& events, HubMetrics& metrics,
                 Clock& clock, HubStreamOptions options, WorkerPool& pool,
                 AgentAuthenticator& authenticator)
    : sink_(sink),
      events_(events),
      metrics_(metrics),
      clock_(clock),
      options_(options),
      pool_(pool),
      authenticator_(authenticator),
      throttle_(options.per_address, clock) {}

HubCore::~HubCore() {
  Shutdown();
}

void HubCore::Start() {
  std::lock_guard<std::mutex> l(mu_);
  shutting_down_ = false;
  sweeper_ = std::thread([this] { SweepLoop(); });
}

void HubCore::Shutdown() {
  {
    std::lock_guard<std::mutex> l(mu_);
    shutting_down_ = true;
    for (auto& [node, stream] : streams_) stream->EndForShutdown();
    for (AgentStream* stream : pending_) stream->EndForShutdown();
    cv_.notify_all();
  }
  if (sweeper_.joinable()) sweeper_.join();
}

bool HubCore::ShuttingDown() const {
  std::lock_guard<std::mutex> l(mu_);
  return shutting_down_;
}

void HubCore::SweepLoop() {
  std::unique_lock<std::mutex> l(mu_);
  while (!shutting_down_) {
    clock_.WaitUntil(l, cv_, clock_.Now() + std::chrono::seconds(1));
    const auto now = clock_.Now();
    for (AgentStream* stream : pending_) {
      if (now - stream->started() >= options_.hello_timeout) stream->ExpireHello();
    }
    throttle_.Sweep();
  }
}

void HubCore::AddPending(AgentStream* stream) {
  std::lock_guard<std::mutex> l(mu_);
  pending_.insert(stream);
  if (shutting_down_) stream->EndForShutdown();
}

void HubCore::HelloReceived(AgentStream* stream) {
  std::lock_guard<std::mutex> l(mu_);
  pending_.erase(stream);
}

void HubCore::Authenticate(AgentStream* stream, const agent::v1::Hello& hello) {
  // What this address, or the agent the Hello names, may still make the hub do comes first: of a
  // throttled peer's Hellos only the address, the node name and the token's claims (each within
  // its bound) are looked at.
  const HelloKey key = HelloKeyOf(stream->peer(), hello.node_name(), hello.token());
  const AddressThrottle::Admission admission = throttle_.Admit(key);
  if (admission.refusal) {
    stream->OnAuthenticated("", *admission.refusal);
    return;
  }
  const AddressThrottle::Lane lane = admission.lane;
  // Before the Hello is copied into the queue or its fields reach a log line or an Event.
  if (auto malformed =
          CheckHelloShape(hello.node_name(), hello.agent_version(), hello.token().size())) {
    throttle_.Done(key, lane, *malformed);
    stream->OnAuthenticated("", *malformed);
    return;
  }
  const bool queued = pool_.TrySubmit([this, stream, hello, key, lane] {
    // Once the hub stops, queued Hellos are answered, not reviewed: the backlog (up to
    // auth_queue of them, each a TokenReview and a Pod read) must not hold shutdown, and with it
    // the lease release, past the pod's grace period. The agents reconnect to the next leader.
    const AdmissionDecision decision =
        ShuttingDown() ? ShuttingDownRefusal() : authenticator_.Authenticate(hello);
    throttle_.Done(key, lane, decision);
    stream->OnAuthenticated(hello.node_name(), decision);
  });
  if (!queued) {
    const AdmissionDecision busy =
        Unavailable("queueing the authentication",
                    UnavailableError("too many agents are being authenticated at once"));
    throttle_.Done(key, lane, busy);
    stream->OnAuthenticated(hello.node_name(), busy);
  }
}

void HubCore::Accept(AgentStream* stream) {
  std::lock_guard<std::mutex> l(mu_);
  if (shutting_down_) {
    stream->EndForShutdown();
    return;
  }
  const AgentIdentity& id = stream->identity();
  AgentStream*& slot = streams_[id.node_name];
  if (slot != nullptr && slot != stream) slot->Supersede(id);
  slot = stream;
  std::optional<agent::v1::Requirements> requirements;
  if (auto it = requirements_.find(id.node_name); it != requirements_.end()) {
    requirements.emplace();
    requirements->ParseFromString(it->second);
  }
  spdlog::info("agenthub: node {}: accepted agent {} from pod {}/{} ({})", id.node_name,
               id.agent_version, id.pod_namespace, id.pod_name, stream->peer());
  stream->Activate(requirements);
}

void HubCore::Remove(AgentStream* stream) {
  std::lock_guard<std::mutex> l(mu_);
  pending_.erase(stream);
  const std::string& node = stream->identity().node_name;
  if (auto it = streams_.find(node); it != streams_.end() && it->second == stream) {
    streams_.erase(it);
  }
  stream->Deactivate();
}

void HubCore::RecordRefusal(const std::string& node_name, const AdmissionDecision& decision) {
  metrics_.refused.With({decision.reason}).Inc();
  // Not the agent's problem (one per Hello at shutdown), or a flood's: neither is logged per
  // stream (AddressThrottle logs a throttled address once a minute).
  if (decision.reason == kReasonShuttingDown || decision.reason == kReasonTooManyPending ||
      decision.reason == kReasonAddressThrottled)
    return;
  spdlog::warn("agenthub: refused agent for node '{}': {} ({})", node_name, decision.message,
               decision.reason);
  const bool identity_problem = decision.code == StatusCode::kUnauthenticated ||
                                decision.code == StatusCode::kPermissionDenied;
  if (!identity_problem || node_name.empty()) return;
  k8s::JsonObject node;
  node.SetApiVersion("v1");
  node.SetKind("Node");
  node.SetName(node_name);
  events_.Record(node, runtime::EventType::kWarning, decision.reason, "ConnectAgent",
                 "agent hub refused a stream claiming this node: " + decision.message);
}

void HubCore::Publish(const std::string& node_name, const agent::v1::Requirements& requirements) {
  std::string serialized;
  requirements.SerializeToString(&serialized);
  std::lock_guard<std::mutex> l(mu_);
  auto [it, inserted] = requirements_.try_emplace(node_name, serialized);
  if (!inserted) {
    if (it->second == serialized) return;
    it->second = serialized;
  }
  if (auto s = streams_.find(node_name); s != streams_.end()) {
    s->second->PushRequirements(requirements);
  }
}

void HubCore::Forget(const std::string& node_name) {
  throttle_.Forget(node_name);
  std::lock_guard<std::mutex> l(mu_);
  requirements_.erase(node_name);
}

size_t HubCore::connected() const {
  std::lock_guard<std::mutex> l(mu_);
  return streams_.size();
}

}  // namespace rdmastack::agenthub
