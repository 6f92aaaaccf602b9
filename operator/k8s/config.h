#pragma once
// How to reach and authenticate to an API server: from a kubeconfig file or from inside a pod.

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/status.h"

namespace rdmastack::k8s {

// Supplies the bearer token per request, so rotated tokens are picked up.
class TokenSource {
 public:
  virtual ~TokenSource() = default;
  virtual StatusOr<std::string> Token() = 0;
};

class StaticTokenSource final : public TokenSource {
 public:
  explicit StaticTokenSource(std::string token) : token_(std::move(token)) {}
  StatusOr<std::string> Token() override { return token_; }

 private:
  std::string token_;
};

// Re-reads a token file (projected ServiceAccount tokens rotate) at most every `refresh` — the
// kubelet rotates well before expiry, client-go re-reads every minute. A read failure after a
// successful one keeps serving the last token and logs a warning.
class FileTokenSource final : public TokenSource {
 public:
  FileTokenSource(std::string path, Clock& clock,
                  std::chrono::seconds refresh = std::chrono::seconds(60));
  StatusOr<std::string> Token() override;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  Clock& clock_;
  std::chrono::seconds refresh_;
  std::mutex mu_;
  std::string token_;
  bool loaded_ = false;
  Clock::TimePoint next_read_{};
};

struct TlsConfig {
  std::string ca_pem;           // trusted CAs; empty = system default store
  std::string client_cert_pem;  // client certificate chain (mTLS)
  std::string client_key_pem;
  // Name checked against the server certificate (SAN DNS or IP); defaults to the URL's host.
  std::string server_name;
  // Skips certificate verification. Only ever set by an explicit kubeconfig field
  // (insecure-skip-tls-verify: true) or a caller; it is logged loudly when used.
  bool insecure_skip_verify = false;
};

struct Config {
  std::string server;  // "https://host:port" (IPv6 hosts in brackets)
  TlsConfig tls;
  std::shared_ptr<TokenSource> token;  // null = no bearer token
  std::string user_agent;              // default "rdmastack-operator/<version>"
  std::chrono::milliseconds connect_timeout{10'000};
  // Deadline for sending a request and, separately, for reading its whole response (watches use
  // WatchOptions::inactivity_timeout instead once the header is in).
  std::chrono::milliseconds request_timeout{60'000};
  size_t max_idle_connections = 8;
  // A 429, or a 5xx, that carries Retry-After is retried after that many seconds (capped at
  // max_retry_after), up to this many times, as client-go does: API Priority and Fairness answers
  // 429 when it sheds load, and the request was not processed.
  int max_throttle_retries = 10;
  std::chrono::seconds max_retry_after{30};
  // The context's namespace (kubeconfig) or the pod's namespace (in-cluster); may be empty.
  std::string default_namespace;
  // Where the values came from (file + context, or "in-cluster"), for messages.
  std::string source;
};

std::string DefaultUserAgent();

// Parses kubeconfig YAML. `context` empty = current-context. Relative file paths are resolved
// against `base_dir` (the kubeconfig's directory). Every problem names the field at fault.
StatusOr<Config> ParseKubeconfig(std::string_view yaml, std::string_view base_dir,
                                 std::string_view context = "",
                                 Clock& clock = RealClock::Instance());
StatusOr<Config> LoadKubeconfig(const std::string& path, std::string_view context = "",
                                Clock& clock = RealClock::Instance());

// Where in-cluster configuration comes from; overridable for tests.
struct InClusterPaths {
  std::string token_file = "/var/run/secrets/kubernetes.io/serviceaccount/token";
  std::string ca_file = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt";
  std::string namespace_file = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";
};
// KUBERNETES_SERVICE_HOST/PORT + the ServiceAccount token (re-read as it rotates) + CA bundle.
StatusOr<Config> LoadInClusterConfig(const InClusterPaths& paths = {},
                                     Clock& clock = RealClock::Instance());
// The pod's namespace from the ServiceAccount mount.
StatusOr<std::string> InClusterNamespace(const InClusterPaths& paths = {});

// kubeconfig path (explicit, else $KUBECONFIG) when given, else in-cluster.
StatusOr<Config> LoadDefaultConfig(const std::string& kubeconfig_path = "");

// Reads a whole file (for kubeconfig-referenced files); the error names the path.
StatusOr<std::string> ReadFileToString(const std::string& path);
// Standard base64 (kubeconfig *-data fields); whitespace is ignored, bad input is an error.
StatusOr<std::string> DecodeBase64(std::string_view text);
// Standard base64 with padding, no line breaks (Secret data, caBundle, JSON patches).
std::string EncodeBase64(std::string_view bytes);

}  // namespace rdmastack::k8s
