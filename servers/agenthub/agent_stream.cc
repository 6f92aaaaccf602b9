#include "servers/agenthub/agent_stream.h"

#include <spdlog/spdlog.h>

namespace rdmastack::agenthub {
namespace {

namespace pb = agent::v1;

}  // namespace

grpc::Status ToGrpcStatus(StatusCode code, const std::string& message) {
  return grpc::Status(static_cast<grpc::StatusCode>(static_cast<int>(code)), message);
}

AgentStream::AgentStream(HubCore& core, grpc::CallbackServerContext* context)
    : core_(core),
      peer_(context->peer()),
      started_(core.clock().Now()),
      reports_limit_(core.clock(), core.options().reports_per_minute / 60.0,
                     core.options().reports_per_minute),
      counters_limit_(core.clock(), core.options().reports_per_minute / 60.0,
                      core.options().reports_per_minute) {
  {
    std::lock_guard<std::mutex> l(mu_);
    StartRead(&in_);
  }
  core_.AddPending(this);
}

void AgentStream::OnReadDone(bool ok) {
  std::unique_lock<std::mutex> l(mu_);
  if (!ok) {
    // The agent half-closed or went away (or the stream was ended here): nothing more to read.
    FinishLocked(grpc::Status::OK);
    return;
  }
  if (state_ == State::kStreaming) {
    l.unlock();
    if (!Handle(in_)) return;
    l.lock();
    if (!finished_) StartRead(&in_);
    return;
  }
  // kAwaitHello (no read is outstanding while authenticating).
  if (!in_.has_hello()) {
    l.unlock();
    Refuse("NoHello", StatusCode::kInvalidArgument,
           "the first message on a stream must be Hello (node name, agent version, token)");
    return;
  }
  state_ = State::kAuthenticating;
  authenticating_ = true;
  l.unlock();
  core_.HelloReceived(this);
  core_.Authenticate(this, in_.hello());
}

void AgentStream::OnAuthenticated(const std::string& claimed_node,
                                  const AdmissionDecision& decision) {
  // authenticating_ stays true until this worker is done with the stream: a Finish asked for
  // meanwhile by another thread (a newer stream for the node, shutdown, the Hello deadline) is
  // deferred to the end, so gRPC cannot end and delete the stream while it is still used here.
  bool go_on;
  {
    std::lock_guard<std::mutex> l(mu_);
    go_on = !deferred_finish_ && !finished_ && !cancelled_;
    if (go_on && decision.accepted()) identity_ = decision.identity;
  }
  if (go_on && !decision.accepted()) {
    core_.RecordRefusal(claimed_node, decision);
    std::lock_guard<std::mutex> l(mu_);
    authenticating_ = false;
    FinishLocked(ToGrpcStatus(decision.code, decision.message));
    return;
  }
  if (go_on) core_.Accept(this);
  std::lock_guard<std::mutex> l(mu_);
  authenticating_ = false;
  if (deferred_finish_) {
    FinishLocked(*deferred_finish_);
    return;
  }
  if (!go_on || cancelled_) {
    FinishLocked(grpc::Status(grpc::StatusCode::CANCELLED, "the agent went away"));
    return;
  }
  if (finished_) return;
  state_ = State::kStreaming;
  StartRead(&in_);
}

bool AgentStream::Handle(const pb::AgentMessage& message) {
  switch (message.body_case()) {
    case pb::AgentMessage::kReport: {
      const auto& report = message.report();
      if (!report.node_name().empty() && report.node_name() != identity_.node_name) {
        Refuse("ReportForOtherNode", StatusCode::kPermissionDenied,
               "a report for node " + report.node_name() + " on a stream authenticated for node " +
                   identity_.node_name);
        return false;
      }
      if (reports_limit_.When("") > Clock::Duration::zero()) {
        Refuse("ReportRateExceeded", StatusCode::kResourceExhausted,
               "more than " + std::to_string(core_.options().reports_per_minute) +
                   " reports in a minute from node " + identity_.node_name +
                   "; an agent reports only when its facts change, so something on the node "
                   "flaps (compare two reports' facts)");
        return false;
      }
      core_.metrics().reports.Inc();
      std::lock_guard<std::mutex> l(mu_);
      if (current_) core_.sink().OnReport(identity_, report);
      EnqueueLocked(AckLocked(report.content_hash()));
      return !finished_;
    }
    case pb::AgentMessage::kPortCounters: {
      // Ten counters a port take about 300 bytes; 64 KiB is some 200 ports, past any server's.
      constexpr size_t kMaxCountersBytes = 64 * 1024;
      if (message.port_counters().ByteSizeLong() > kMaxCountersBytes) {
        Refuse("PortCountersTooLarge", StatusCode::kInvalidArgument,
               "port counters of " + std::to_string(message.port_counters().ByteSizeLong()) +
                   " bytes from node " + identity_.node_name + "; at most " +
                   std::to_string(kMaxCountersBytes) + " are taken");
        return false;
      }
      if (counters_limit_.When("") > Clock::Duration::zero()) {
        Refuse("PortCountersRateExceeded", StatusCode::kResourceExhausted,
               "more than " + std::to_string(core_.options().reports_per_minute) +
                   " port counter samples in a minute from node " + identity_.node_name +
                   "; an agent sends them at most once a probe, so something re-probes it");
        return false;
      }
      std::lock_guard<std::mutex> l(mu_);
      if (current_) core_.sink().OnPortCounters(identity_, message.port_counters());
      return true;
    }
    case pb::AgentMessage::kHeartbeat: {
      std::lock_guard<std::mutex> l(mu_);
      if (current_) core_.sink().OnHeartbeat(identity_, core_.clock().WallNow());
      return true;
    }
    case pb::AgentMessage::kHello:
      Refuse("HelloRepeated", StatusCode::kInvalidArgument,
             "Hello may be sent only once per stream");
      return false;
    case pb::AgentMessage::kCommandResult:
    case pb::AgentMessage::BODY_NOT_SET:
      return true;  // no command is sent yet; an empty message is harmless
  }
  return true;
}

void AgentStream::Refuse(const char* reason, StatusCode code, const std::string& message) {
  AdmissionDecision d;
  d.code = code;
  d.reason = reason;
  d.message = message;
  core_.RecordRefusal(identity_.node_name, d);
  std::lock_guard<std::mutex> l(mu_);
  FinishLocked(ToGrpcStatus(code, message));
}

pb::HubMessage AgentStream::AckLocked(const std::string& report_hash) const {
  pb::HubMessage m;
  m.mutable_ack()->set_report_hash(report_hash);
  m.mutable_ack()->set_heartbeat_seconds(core_.options().heartbeat_seconds);
  return m;
}

void AgentStream::Activate(const std::optional<pb::Requirements>& requirements) {
  std::lock_guard<std::mutex> l(mu_);
  if (finished_) return;
  current_ = true;
  core_.metrics().connected.Inc();
  core_.sink().OnAgentConnected(identity_);
  EnqueueLocked(AckLocked(""));
  if (requirements) {
    pb::HubMessage m;
    *m.mutable_requirements() = *requirements;
    EnqueueLocked(std::move(m));
  }
}

void AgentStream::Deactivate() {
  std::lock_guard<std::mutex> l(mu_);
  if (!current_) return;
  current_ = false;
  core_.metrics().connected.Dec();
  core_.sink().OnAgentDisconnected(identity_);
}

void AgentStream::Supersede(const AgentIdentity& newer) {
  Deactivate();
  spdlog::info("agenthub: node {}: stream from pod {}/{} ({}) replaced by one from pod {}/{}",
               identity_.node_name, identity_.pod_namespace, identity_.pod_name, peer_,
               newer.pod_namespace, newer.pod_name);
  std::lock_guard<std::mutex> l(mu_);
  FinishLocked(grpc::Status(grpc::StatusCode::ABORTED,
                            "replaced by a newer stream for node " + identity_.node_name +
                                " (pod " + newer.pod_namespace + "/" + newer.pod_name + ")"));
}

void AgentStream::PushRequirements(const pb::Requirements& requirements) {
  pb::HubMessage m;
  *m.mutable_requirements() = requirements;
  std::lock_guard<std::mutex> l(mu_);
  if (current_) EnqueueLocked(std::move(m));
}

void AgentStream::ExpireHello() {
  std::lock_guard<std::mutex> l(mu_);
  if (state_ != State::kAwaitHello || finished_) return;
  FinishLocked(
      grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "no Hello within the hub's hello timeout"));
}

void AgentStream::EndForShutdown() {
  std::lock_guard<std::mutex> l(mu_);
  FinishLocked(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                            "the operator's agent hub is shutting down; reconnect"));
}

void AgentStream::EnqueueLocked(pb::HubMessage message) {
  if (finished_) return;
  if (message.has_requirements()) {
    // Only the latest requirements matter; one still waiting is replaced.
    std::erase_if(outbox_, [](const pb::HubMessage& m) { return m.has_requirements(); });
  }
  if (outbox_.size() >= core_.options().max_queued_messages) {
    FinishLocked(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                              "the agent does not read what the hub sends"));
    return;
  }
  outbox_.push_back(std::move(message));
  if (writing_) return;
  in_flight_ = std::move(outbox_.front());
  outbox_.pop_front();
  writing_ = true;
  StartWrite(&in_flight_);
}

void AgentStream::OnWriteDone(bool ok) {
  std::lock_guard<std::mutex> l(mu_);
  writing_ = false;
  if (!ok || finished_) {
    outbox_.clear();
    return;
  }
  if (outbox_.empty()) return;
  in_flight_ = std::move(outbox_.front());
  outbox_.pop_front();
  writing_ = true;
  StartWrite(&in_flight_);
}

void AgentStream::FinishLocked(const grpc::Status& status) {
  if (finished_) return;
  if (authenticating_) {
    // OnDone could otherwise delete the stream under the worker that is authenticating it.
    if (!deferred_finish_) deferred_finish_ = status;
    return;
  }
  finished_ = true;
  Finish(status);
}

void AgentStream::OnCancel() {
  std::lock_guard<std::mutex> l(mu_);
  cancelled_ = true;
}

void AgentStream::OnDone() {
  core_.Remove(this);
  delete this;  // gRPC's callback API hands ownership of a reactor back in OnDone
}

grpc::ServerBidiReactor<pb::AgentMessage, pb::HubMessage>* AgentHubService::Connect(
    grpc::CallbackServerContext* context) {
  return new AgentStream(core_, context);  // deleted by its own OnDone (gRPC's contract)
}

}  // namespace rdmastack::agenthub
