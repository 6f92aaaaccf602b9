#include "agents/node-agent/daemon/agent_daemon.h"

#include <grpcpp/grpcpp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <spdlog/spdlog.h>

#include <random>
#include <thread>

#include "agents/node-agent/probe/host_root.h"
#include "agents/proto/agenthub.grpc.pb.h"
#include "operator/base/logging.h"
#include "operator/base/version.h"

namespace rdmastack::agent {
namespace {

namespace pb = ::rdmastack::agent::v1;

double UniformRandom() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
}

// A CA bundle that gRPC cannot load fails only inside the handshake, over and over; say so once.
Status ValidateCaBundle(const std::string& pem) {
  std::unique_ptr<BIO, int (*)(BIO*)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())),
                                          &BIO_free);
  std::unique_ptr<X509, void (*)(X509*)> cert(
      PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr), &X509_free);
  if (!cert) return InvalidArgumentError("no PEM certificate could be parsed");
  return OkStatus();
}

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
  if (cancel_session_) cancel_session_();
  cv_.notify_all();
}

void AgentDaemon::RequestReprobe() {
  std::lock_guard<std::mutex> lock(mu_);
  reprobe_ = true;
  cv_.notify_all();
}

Status AgentDaemon::Run() {
  auto ca = ReadLocalFile(options_.ca_file, 1 << 20);
  if (!ca.ok()) return ca.status().WithContext("--ca-file");
  RDMASTACK_RETURN_IF_ERROR(ValidateCaBundle(*ca).WithContext("--ca-file " + options_.ca_file));
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
  auto token = ReadLocalFile(options_.token_file, 64 << 10);
  if (!token.ok()) return token.status().WithContext("token file");
  std::string token_text = *token;
  while (!token_text.empty() && (token_text.back() == '\n' || token_text.back() == '\r'))
    token_text.pop_back();

  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = ca_pem;
  grpc::ChannelArguments args;
  if (!options_.tls_server_name.empty()) args.SetSslTargetNameOverride(options_.tls_server_name);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 30'000);
  auto channel = grpc::CreateCustomChannel(options_.hub_address, grpc::SslCredentials(ssl), args);
  auto stub = pb::AgentHub::NewStub(channel);
  grpc::ClientContext ctx;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return OkStatus();
    cancel_session_ = [&ctx] { ctx.TryCancel(); };
  }
  auto stream = stub->Connect(&ctx);
  ++stats_.connects;

  // Shared between the reader thread and the writer loop, guarded by mu_.
  bool closed = false;
  bool acked = false;
  std::chrono::milliseconds heartbeat = options_.default_heartbeat;
  std::vector<pb::CommandResult> results;

  std::string sent_hash;  // per session: a new connection always gets the full report
  auto next_probe = clock_->Now();
  auto next_heartbeat = clock_->Now() + heartbeat;

  std::thread reader([&] {
    pb::HubMessage msg;
    while (stream->Read(&msg)) {
      std::lock_guard<std::mutex> lock(mu_);
      if (msg.has_ack()) {
        acked = true;
        if (msg.ack().heartbeat_seconds() > 0)
          heartbeat = std::chrono::seconds(msg.ack().heartbeat_seconds());
      } else if (msg.has_requirements()) {
        requirements_ = msg.requirements();
        reprobe_ = true;  // requirements change the verdicts
      } else if (msg.has_command()) {
        reprobe_ = true;
        pb::CommandResult r;
        r.set_id(msg.command().id());
        r.set_ok(true);
        r.set_message(msg.command().kind() == pb::Command::SELF_TEST
                          ? "self-test: probed and evaluated"
                          : "re-probed");
        results.push_back(std::move(r));
      }
      cv_.notify_all();
    }
    std::lock_guard<std::mutex> lock(mu_);
    closed = true;
    cv_.notify_all();
  });

  auto write = [&](const pb::AgentMessage& m) { return stream->Write(m); };
  pb::AgentMessage hello;
  hello.mutable_hello()->set_node_name(options_.node_name);
  hello.mutable_hello()->set_agent_version(kVersion);
  hello.mutable_hello()->set_token(token_text);
  bool ok = write(hello);

  while (ok) {
    std::optional<pb::Requirements> reqs;
    std::vector<pb::CommandResult> to_send;
    bool probe_now = false;
    {
      std::unique_lock<std::mutex> lock(mu_);
      const auto deadline = std::min(next_probe, next_heartbeat);
      while (!stopping_ && !closed && !reprobe_ && results.empty() && clock_->Now() < deadline) {
        clock_->WaitUntil(lock, cv_, deadline);
      }
      if (stopping_ || closed) break;
      if (acked) backoff_.Reset();
      probe_now = reprobe_ || clock_->Now() >= next_probe;
      reprobe_ = false;
      reqs = requirements_;
      to_send.swap(results);
    }
    if (probe_now) {
      pb::NodeReport report = source_->Build(reqs);
      ++stats_.probes;
      next_probe = clock_->Now() + options_.probe_interval;
      if (report.content_hash() != sent_hash) {
        report.set_probed_unix_millis(UnixMillis(clock_));
        pb::AgentMessage m;
        *m.mutable_report() = report;
        ok = write(m);
        if (ok) {
          sent_hash = report.content_hash();
          ++stats_.reports_sent;
        }
      }
    }
    for (const auto& r : to_send) {
      pb::AgentMessage m;
      *m.mutable_command_result() = r;
      ok = ok && write(m);
    }
    if (ok && clock_->Now() >= next_heartbeat) {
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
  ctx.TryCancel();
  reader.join();
  grpc::Status st = stream->Finish();
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancel_session_ = nullptr;
  }
  if (st.ok()) return UnavailableError("hub closed the stream");
  return UnavailableError("grpc " + std::to_string(static_cast<int>(st.error_code())) + ": " +
                          st.error_message());
}

}  // namespace rdmastack::agent
