#pragma once
// One agent's AgentHub.Connect stream, as a gRPC callback-API reactor.
//
// Why the callback API: every agent holds one stream open for as long as it runs (5,000 per hub
// is the design target) and is silent but for a heartbeat every 10 s. The synchronous API would
// park a thread on each stream; the async completion-queue API needs a hand-written state machine
// per operation. Reactors cost no thread while idle, and gRPC runs their reactions on its own
// threads; anything that blocks (the TokenReview, the Pod read) runs on the hub's worker pool.
//
// Life of a stream: Hello (within hello_timeout) -> authentication on the pool -> Ack and the
// node's requirements -> reports (each Acked with its content hash, rate limited) and heartbeats
// until the agent leaves, a newer stream for the node replaces this one (ABORTED), a limit is
// broken, or the hub shuts down (UNAVAILABLE). gRPC deletes nothing: OnDone deletes the reactor.

#include <grpcpp/grpcpp.h>

#include <deque>
#include <mutex>
#include <optional>
#include <string>

#include "agents/proto/agenthub.grpc.pb.h"
#include "operator/runtime/rate_limiter.h"
#include "servers/agenthub/admission.h"
#include "servers/agenthub/hub_core.h"

namespace rdmastack::agenthub {

// The gRPC status for a Status code (same numbering as gRPC's).
grpc::Status ToGrpcStatus(StatusCode code, const std::string& message);

class AgentStream final
    : public grpc::ServerBidiReactor<agent::v1::AgentMessage, agent::v1::HubMessage> {
 public:
  AgentStream(HubCore& core, grpc::CallbackServerContext* context);

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

  // ---- called by HubCore (with its mutex held) ----
  void OnAuthenticated(const std::string& claimed_node, const AdmissionDecision& decision);
  // Become the node's current stream: tell the sink, send Ack and the requirements.
  void Activate(const std::optional<agent::v1::Requirements>& requirements);
  // No longer the node's current stream (tells the sink once).
  void Deactivate();
  // Replaced by a newer stream for the node.
  void Supersede(const AgentIdentity& newer);
  void PushRequirements(const agent::v1::Requirements& requirements);
  void ExpireHello();
  void EndForShutdown();

  const AgentIdentity& identity() const { return identity_; }  // set before Accept
  Clock::TimePoint started() const { return started_; }
  const std::string& peer() const { return peer_; }

 private:
  enum class State { kAwaitHello, kAuthenticating, kStreaming };

  // Returns false when the stream was ended.
  bool Handle(const agent::v1::AgentMessage& message);
  void Refuse(const char* reason, StatusCode code, const std::string& message);
  void EnqueueLocked(agent::v1::HubMessage message);
  void FinishLocked(const grpc::Status& status);
  agent::v1::HubMessage AckLocked(const std::string& report_hash) const;

  HubCore& core_;
  const std::string peer_;
  const Clock::TimePoint started_;
  agent::v1::AgentMessage in_;  // the one outstanding read
  runtime::BucketRateLimiter reports_limit_;
  runtime::BucketRateLimiter counters_limit_;  // the same budget, apart from the reports'

  std::mutex mu_;
  State state_ = State::kAwaitHello;
  AgentIdentity identity_;
  bool current_ = false;    // the node's current stream: the sink hears from it
  bool finished_ = false;   // Finish has been called
  bool cancelled_ = false;  // the client went away
  bool writing_ = false;
  // While the worker pool authenticates this stream it must not end: a Finish asked for then is
  // kept here and done when the decision arrives.
  bool authenticating_ = false;
  std::optional<grpc::Status> deferred_finish_;
  agent::v1::HubMessage in_flight_;  // the one outstanding write
  std::deque<agent::v1::HubMessage> outbox_;
};

// The service: one AgentStream per Connect call.
class AgentHubService final : public agent::v1::AgentHub::CallbackService {
 public:
  explicit AgentHubService(HubCore& core) : core_(core) {}
  grpc::ServerBidiReactor<agent::v1::AgentMessage, agent::v1::HubMessage>* Connect(
      grpc::CallbackServerContext* context) override;

 private:
  HubCore& core_;
};

}  // namespace rdmastack::agenthub
