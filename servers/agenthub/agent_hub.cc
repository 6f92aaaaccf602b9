#include "servers/agenthub/agent_hub.h"

#include <absl/synchronization/mutex.h>
#include <grpcpp/resource_quota.h>
#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_credentials_options.h>
#include <malloc.h>
#include <spdlog/spdlog.h>

#include "operator/runtime/serving_cert.h"

namespace rdmastack::agenthub {

Status ValidateAgentHubOptions(const AgentHubOptions& o) {
  if (o.policy.service_account_namespace.empty() || o.policy.service_account_name.empty()) {
    return InvalidArgumentError(
        "agent hub: the agent ServiceAccount (namespace and name) must be set");
  }
  if (o.policy.audience.empty()) return InvalidArgumentError("agent hub: empty token audience");
  if (o.certificates.namespace_.empty()) {
    return InvalidArgumentError("agent hub: the namespace for its Secret and ConfigMap is empty");
  }
  if (o.certificates.hosts.empty()) {
    return InvalidArgumentError(
        "agent hub: no certificate names; give the DNS names/IPs agents dial (e.g. the hub "
        "Service's name)");
  }
  if (o.connections.max_connections < 1) {
    return InvalidArgumentError("agent hub: the connection limit must be at least 1");
  }
  if (o.memory_quota_bytes < 16u << 20) {
    return InvalidArgumentError("agent hub: the gRPC memory quota must be at least 16 MiB");
  }
  if (o.handshake_timeout.count() < 1 || o.connection_idle.count() < 1 ||
      o.max_message_bytes < 64 * 1024) {
    return InvalidArgumentError(
        "agent hub: handshake timeout and connection idle must be positive, the message limit at "
        "least 64 KiB");
  }
  if (o.streams.heartbeat_seconds < 1 || o.streams.reports_per_minute < 1) {
    return InvalidArgumentError(
        "agent hub: heartbeat seconds and reports per minute must be at least 1");
  }
  if (o.certificates.renew_fraction <= 0 || o.certificates.renew_fraction >= 1) {
    return InvalidArgumentError("agent hub: the renew fraction must be between 0 and 1");
  }
  if (o.certificates.serving_validity <= std::chrono::seconds(0) ||
      o.certificates.ca_validity <= o.certificates.serving_validity) {
    return InvalidArgumentError(
        "agent hub: the CA must be valid longer than the serving certificate (both > 0)");
  }
  if (o.max_message_bytes < 1024 || o.auth_threads < 1 || o.certificate_refresh_seconds < 1) {
    return InvalidArgumentError(
        "agent hub: max message size >= 1024, auth threads >= 1, refresh >= 1 s");
  }
  if (o.tsi_max_frame_size != 0 &&
      (o.tsi_max_frame_size < 1024 || o.tsi_max_frame_size > 16 * 1024)) {
    return InvalidArgumentError(
        "agent hub: the TLS frame size must be 0 (gRPC's default, 16 KiB) or 1024..16384 bytes");
  }
  if (o.malloc_mmap_threshold_bytes != 0 &&
      (o.malloc_mmap_threshold_bytes < 4096 || o.malloc_mmap_threshold_bytes > 32u << 20)) {
    return InvalidArgumentError(
        "agent hub: the malloc mmap threshold must be 0 (glibc's dynamic one) or 4096..33554432 "
        "bytes");
  }
  return ValidateMemoryTrimOptions(o.memory_trim);
}

AgentHub::AgentHub(k8s::Client& reader, k8s::Client& writer, runtime::EventRecorder& events,
                   runtime::MetricsRegistry& metrics, AgentEventSink& sink, Clock& clock,
                   AgentHubOptions options)
    : options_(std::move(options)),
      metrics_(metrics),
      certificates_(reader, writer, clock,
                    [this, &metrics] {
                      HubCertificateOptions c = options_.certificates;
                      c.on_identity_change = [&metrics, chained = c.on_identity_change](
                                                 const KeyAndCertificate& identity) {
                        runtime::RecordCertificateExpiry(metrics, "agenthub", identity.cert_pem);
                        if (chained) chained(identity);
                      };
                      return c;
                    }()),
      api_reviewer_(reader, options_.policy.audience, &metrics_.token_reviews),
      reviewer_(api_reviewer_, clock, options_.token_cache),
      authenticator_(reviewer_, reader, options_.policy),
      pool_(options_.auth_threads, options_.auth_queue),
      core_(sink, events, metrics_, clock, options_.streams, pool_, authenticator_),
      service_(core_),
      listener_(options_.connections, metrics),
      trimmer_(
          clock, options_.memory_trim, [this] { return core_.connected(); }, TrimMallocArenas) {}

AgentHub::~AgentHub() {
  Stop();
}

Status AgentHub::Start() {
  RDMASTACK_RETURN_IF_ERROR(ValidateAgentHubOptions(options_));
  if (options_.malloc_mmap_threshold_bytes > 0 &&
      mallopt(M_MMAP_THRESHOLD, static_cast<int>(options_.malloc_mmap_threshold_bytes)) != 1) {
    spdlog::warn("agenthub: glibc refused M_MMAP_THRESHOLD={}",
                 options_.malloc_mmap_threshold_bytes);
  }
  if (!options_.mutex_deadlock_detection) {
    absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  }
  RDMASTACK_RETURN_IF_ERROR(certificates_.Start());
  // The identity file holds the key and the chain (see hub_certificates.h for why one file).
  const std::string identity = certificates_.identity_file();
  provider_ = std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
      identity, identity, options_.certificate_refresh_seconds);
  grpc::experimental::TlsServerCredentialsOptions tls(provider_);
  tls.watch_identity_key_cert_pairs();
  // Agents prove who they are with a ServiceAccount token, not a client certificate.
  tls.set_cert_request_type(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  // gRPC 1.51 has no setting for the TLS versions or cipher suites of these credentials: it
  // negotiates TLS 1.2 or 1.3 (fixed minimum/maximum) with its default suites, which are
  // ECDHE + AEAD only for TLS 1.2 (ECDHE-{ECDSA,RSA}-AES{128,256}-GCM-SHA{256,384}) and
  // TLS 1.3's AES-GCM/ChaCha20-Poly1305. Only the GRPC_SSL_CIPHER_SUITES environment variable
  // (process-wide) could change the 1.2 list. agenthub_tls_integration_test checks all of this.
  // The hub accepts its connections itself, limited, and hands them to gRPC (hub_listener.h).
  if (Status listening = listener_.Listen(options_.listen_address); !listening.ok()) {
    certificates_.Stop();
    return listening.WithContext("agent hub");
  }
  grpc::ServerBuilder builder;
  std::unique_ptr<grpc::experimental::ExternalConnectionAcceptor> acceptor =
      builder.experimental().AddExternalConnectionAcceptor(
          grpc::ServerBuilder::experimental_type::ExternalConnectionType::FROM_FD,
          grpc::experimental::TlsServerCredentials(tls));
  grpc::ResourceQuota quota("agenthub");
  quota.Resize(options_.memory_quota_bytes);
  builder.SetResourceQuota(quota);
  builder.RegisterService(&service_);
  builder.SetMaxReceiveMessageSize(options_.max_message_bytes);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS,
                             static_cast<int>(options_.keepalive_time.count()));
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS,
                             static_cast<int>(options_.keepalive_timeout.count()));
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 0);
  builder.AddChannelArgument(GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS,
                             static_cast<int>(options_.handshake_timeout.count()));
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS,
                             static_cast<int>(options_.connection_idle.count()));
  // One agent needs one stream (two while a reconnect overlaps the old one's end).
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, 2);
  if (options_.tsi_max_frame_size > 0) {
    builder.AddChannelArgument(GRPC_ARG_TSI_MAX_FRAME_SIZE, options_.tsi_max_frame_size);
  }
  builder.AddChannelArgument(GRPC_ARG_HTTP2_BDP_PROBE, options_.http2_bdp_probe ? 1 : 0);
  for (const auto& [name, value] : options_.extra_channel_args) {
    builder.AddChannelArgument(name, value);
  }
  server_ = builder.BuildAndStart();
  if (!server_) {
    certificates_.Stop();
    return UnavailableError("agent hub: gRPC could not start the server");
  }
  listener_.Start(std::move(acceptor));
  port_ = listener_.port();
  core_.Start();
  trimmer_.Start();
  spdlog::info("agenthub: listening on {} (port {}), TLS with the certificate of {}",
               options_.listen_address, port_, certificates_.source());
  return OkStatus();
}

void AgentHub::Stop() {
  if (stopped_) return;
  stopped_ = true;
  trimmer_.Stop();
  core_.Shutdown();
  listener_.Stop();  // before gRPC shuts down: a connection handed over then would be dropped
  if (server_) {
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    server_->Wait();
  }
  pool_.Stop();
  certificates_.Stop();
}

void AgentHub::Publish(const std::string& node_name, const agent::v1::Requirements& requirements) {
  core_.Publish(node_name, requirements);
}

void AgentHub::Forget(const std::string& node_name) {
  core_.Forget(node_name);
}

}  // namespace rdmastack::agenthub
