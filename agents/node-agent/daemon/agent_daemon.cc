#include "agents/node-agent/daemon/agent_daemon.h"

#include <spdlog/spdlog.h>

#include <random>
#include <thread>

#include "agents/node-agent/daemon/report_proto.h"
#include "agents/node-agent/transport/grpc_stream.h"
#include "agents/node-agent/transport/tls_socket.h"
#include "base/logging.h"
#include "base/version.h"
#include "node/probe/host_root.h"

namespace rdmastack::agent {
namespace {

namespace pb = ::rdmastack::agent::v1;

double UniformRandom() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
}

constexpr char kConnectMethod[] = "/rdmastack.agent.v1.AgentHub/Connect";

int64_t UnixMillis(Clock* clock) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(clock->WallNow().time_since_epoch())
      .count();
}

}  // namespace

AgentDaemon::AgentDaemon(DaemonOptions options, ReportSource* source, Clock* clock)
    : options_(std::move(options)),
      source_(source),
      clock_(clock),
      backoff_(options_.backoff, &UniformRandom) {}

AgentDaemon::~AgentDaemon() {
  Stop();
}

void AgentDaemon::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopping_ = true;
  abort_connect_ = true;
  if (cancel_session_) cancel_session_();
  cv_.notify_all();
}

void AgentDaemon::RequestReprobe() {
  std::lock_guard<std::mutex> lock(mu_);
  reprobe_ = true;
  cv_.notify_all();
}

Status AgentDaemon::Run() {
  auto ca = node::ReadLocalFile(options_.ca_file, 1 << 20);
  if (!ca.ok()) return ca.status().WithContext("--ca-file");
  // A CA bundle that cannot be loaded would fail every handshake, over and over; say so once.
  RDMASTACK_RETURN_IF_ERROR(
      transport::ValidateCaBundle(*ca).WithContext("--ca-file " + options_.ca_file));
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return OkStatus();
    }
    Status st = RunSession(*ca);
    std::unique_lock<std::mutex> lock(mu_);
    if (stopping_) return OkStatus();
    const auto delay = backoff_.Next();
    spdlog::warn("hub session ended ({}); reconnecting in {} ms (attempt {})", st.ToString(),
                 delay.count(), backoff_.attempts());
    const auto deadline = clock_->Now() + delay;
    while (!stopping_ && clock_->Now() < deadline) clock_->WaitUntil(lock, cv_, deadline);
  }
}

// One connected stream: a reader thread takes hub messages; this thread writes.
Status AgentDaemon::RunSession(const std::string& ca_pem) {
  auto token = node::ReadLocalFile(options_.token_file, 64 << 10);
  if (!token.ok()) return token.status().WithContext("token file");
  std::string token_text = *token;
  while (!token_text.empty() && (token_text.back() == '\n' || token_text.back() == '\r'))
    token_text.pop_back();

  transport::GrpcStreamOptions stream_options;
  stream_options.address = options_.hub_address;
  stream_options.server_name = options_.tls_server_name;
  stream_options.ca_pem = ca_pem;
  stream_options.method_path = kConnectMethod;
  stream_options.user_agent = std::string("rdmastack-agent/") + kVersion;
  stream_options.abort_connect = &abort_connect_;
  ++stats_.connects;
  auto opened = transport::GrpcBidiStream::Open(stream_options);
  if (!opened.ok()) return opened.status();
  std::unique_ptr<transport::GrpcBidiStream> stream = std::move(*opened);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return OkStatus();
    cancel_session_ = [s = stream.get()] { s->Cancel(); };
  }

  // Shared between the reader thread and the writer loop, guarded by mu_.
  bool closed = false;
  bool acked = false;
  std::chrono::milliseconds heartbeat = options_.default_heartbeat;
  std::vector<pb::CommandResult> results;

  std::string sent_hash;      // per session: a new connection always gets the full report
  std::string sent_counters;  // and the counters (CountersHash of the last sent)
  auto next_probe = clock_->Now();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!requirements_) next_probe += options_.requirements_wait;
  }
  auto next_heartbeat = clock_->Now() + heartbeat;

  std::thread reader([&] {
    std::string bytes;
    while (stream->Read(&bytes)) {
      pb::HubMessage msg;
      if (!msg.ParseFromString(bytes)) {
        spdlog::warn("hub sent a message that does not parse as HubMessage; reconnecting");
        stream->Cancel();
        break;
      }
      std::lock_guard<std::mutex> lock(mu_);
      if (msg.has_ack()) {
        acked = true;
        if (msg.ack().heartbeat_seconds() > 0) {
          heartbeat = std::chrono::seconds(msg.ack().heartbeat_seconds());
          // A shorter interval than the default applies now, not after the default's first beat.
          next_heartbeat = std::min(next_heartbeat, clock_->Now() + heartbeat);
        }
      } else if (msg.has_requirements()) {
        requirements_ = msg.requirements();
        reprobe_ = true;  // requirements change the verdicts
      } else if (msg.has_command()) {
        reprobe_ = true;  // every command re-probes; the answer goes out after that probe
        results.push_back(AnswerCommand(msg.command()));
      }
      cv_.notify_all();
    }
    std::lock_guard<std::mutex> lock(mu_);
    closed = true;
    cv_.notify_all();
  });

  auto write = [&](const pb::AgentMessage& m) {
    std::string bytes;
    return m.SerializeToString(&bytes) && stream->Write(bytes);
  };
  pb::AgentMessage hello;
  hello.mutable_hello()->set_node_name(options_.node_name);
  hello.mutable_hello()->set_agent_version(kVersion);
  hello.mutable_hello()->set_token(token_text);
  bool ok = write(hello);

  while (ok) {
    std::optional<pb::Requirements> reqs;
    std::vector<pb::CommandResult> to_send;
    bool probe_now = false;
    bool heartbeat_due = false;
    {
      std::unique_lock<std::mutex> lock(mu_);
      // The reader may move next_heartbeat earlier (Ack), so the deadline is re-read each wake-up.
      while (!stopping_ && !closed && !reprobe_ && results.empty() &&
             clock_->Now() < std::min(next_probe, next_heartbeat)) {
        clock_->WaitUntil(lock, cv_, std::min(next_probe, next_heartbeat));
      }
      if (stopping_ || closed) break;
      if (acked) backoff_.Reset();
      probe_now = reprobe_ || clock_->Now() >= next_probe;
      heartbeat_due = clock_->Now() >= next_heartbeat;
      reprobe_ = false;
      reqs = requirements_;
      to_send.swap(results);
    }
    if (probe_now) {
      ProbeResult probe = source_->Build(reqs);
      ++stats_.probes;
      next_probe = clock_->Now() + options_.probe_interval;
      ok = SendProbe(write, &probe, &sent_hash, &sent_counters);
    }
    for (const auto& r : to_send) {
      pb::AgentMessage m;
      *m.mutable_command_result() = r;
      ok = ok && write(m);
    }
    if (ok && heartbeat_due) {
      pb::AgentMessage m;
      m.mutable_heartbeat()->set_report_hash(sent_hash);
      m.mutable_heartbeat()->set_unix_millis(UnixMillis(clock_));
      ok = write(m);
      if (ok) ++stats_.heartbeats_sent;
      std::lock_guard<std::mutex> lock(mu_);
      next_heartbeat = clock_->Now() + heartbeat;
    }
  }
  stream->WritesDone();
  stream->Cancel();
  reader.join();
  Status st = stream->Finish();
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancel_session_ = nullptr;
  }
  if (st.ok()) return UnavailableError("hub closed the stream");
  return st;
}

bool AgentDaemon::SendProbe(const std::function<bool(const pb::AgentMessage&)>& write,
                            ProbeResult* probe, std::string* sent_hash,
                            std::string* sent_counters) {
  const int64_t now = UnixMillis(clock_);
  if (probe->report.content_hash() != *sent_hash) {
    probe->report.set_probed_unix_millis(now);
    pb::AgentMessage m;
    *m.mutable_report() = std::move(probe->report);
    if (!write(m)) return false;
    *sent_hash = m.report().content_hash();
    ++stats_.reports_sent;
  }
  if (probe->counters.ports().empty()) return true;
  std::string counters = CountersHash(probe->counters);
  if (counters == *sent_counters) return true;
  probe->counters.set_sampled_unix_millis(now);
  pb::AgentMessage m;
  *m.mutable_port_counters() = std::move(probe->counters);
  if (!write(m)) return false;
  *sent_counters = std::move(counters);
  ++stats_.counters_sent;
  return true;
}

agent::v1::CommandResult AnswerCommand(const agent::v1::Command& command) {
  agent::v1::CommandResult r;
  r.set_id(command.id());
  switch (command.kind()) {
    case agent::v1::Command::REPROBE:
      r.set_ok(true);
      r.set_message("re-probed; a report follows when the facts changed");
      break;
    case agent::v1::Command::SELF_TEST:
      r.set_ok(false);
      r.set_message(std::string("SELF_TEST is not implemented by rdmastack-agent ") + kVersion +
                    ": nothing was tested (the node was re-probed)");
      break;
    default:
      r.set_ok(false);
      r.set_message("unknown command kind " + std::to_string(command.kind()) +
                    " (this agent knows REPROBE and SELF_TEST); the node was re-probed");
      break;
  }
  return r;
}

}  // namespace rdmastack::agent
