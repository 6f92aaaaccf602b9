#include "operator/k8s/config.h"

#include <openssl/evp.h>
#include <spdlog/spdlog.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>

#include "base/version.h"

namespace rdmastack::k8s {
namespace {

std::string Trim(std::string s) {
  const char* ws = " \t\r\n";
  s.erase(0, s.find_first_not_of(ws));
  s.erase(s.find_last_not_of(ws) + 1);
  return s;
}

std::string ResolvePath(const std::string& path, std::string_view base_dir) {
  if (path.empty() || base_dir.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (std::filesystem::path(base_dir) / path).string();
}

// A kubeconfig entry like clusters[] / users[] / contexts[]: {name: x, <inner>: {...}}.
StatusOr<YAML::Node> FindNamed(const YAML::Node& root, const char* list, const char* inner,
                               const std::string& name) {
  const YAML::Node items = root[list];
  if (!items || items.IsNull())
    return InvalidArgumentError(std::string("kubeconfig has no '") + list + "' list");
  if (!items.IsSequence())
    return InvalidArgumentError(std::string("kubeconfig '") + list + "' is not a list");
  for (size_t i = 0; i < items.size(); ++i) {
    const YAML::Node item = items[i];
    if (!item.IsMap() || !item["name"] || item["name"].as<std::string>() != name) continue;
    const YAML::Node body = item[inner];
    if (!body || !body.IsMap()) {
      return InvalidArgumentError(std::string("kubeconfig ") + list + "[" + std::to_string(i) +
                                  "] '" + name + "' has no '" + inner + "' map");
    }
    return body;
  }
  return InvalidArgumentError(std::string("kubeconfig has no ") + list + " entry named '" + name +
                              "'");
}

std::string Scalar(const YAML::Node& node, const char* key) {
  const YAML::Node v = node[key];
  if (!v || !v.IsScalar()) return {};
  return v.as<std::string>();
}

// Reads `<field>-data` (base64) or `<field>` (a file path, relative to the kubeconfig).
StatusOr<std::string> DataOrFile(const YAML::Node& node, const std::string& field,
                                 std::string_view where, std::string_view base_dir) {
  std::string data = Scalar(node, (field + "-data").c_str());
  std::string file = Scalar(node, field.c_str());
  if (!data.empty()) {
    auto decoded = DecodeBase64(data);
    if (!decoded.ok()) {
      return InvalidArgumentError(std::string(where) + "." + field +
                                  "-data: " + decoded.status().message());
    }
    return decoded;
  }
  if (file.empty()) return std::string();
  auto content = ReadFileToString(ResolvePath(file, base_dir));
  if (!content.ok()) return content.status().WithContext(std::string(where) + "." + field);
  return content;
}

bool LooksLikePem(const std::string& s) {
  return s.find("-----BEGIN ") != std::string::npos;
}

StatusOr<Config> BuildFromKubeconfig(const YAML::Node& root, std::string_view base_dir,
                                     std::string_view context_override, Clock& clock) {
  if (!root.IsMap()) return InvalidArgumentError("kubeconfig is not a YAML map");
  std::string context_name(context_override);
  if (context_name.empty()) context_name = Scalar(root, "current-context");
  if (context_name.empty()) {
    return InvalidArgumentError("kubeconfig has no current-context and no context was requested");
  }
  RDMASTACK_ASSIGN_OR_RETURN(YAML::Node context,
                             FindNamed(root, "contexts", "context", context_name));
  const std::string cluster_name = Scalar(context, "cluster");
  const std::string user_name = Scalar(context, "user");
  if (cluster_name.empty())
    return InvalidArgumentError("context '" + context_name + "' names no cluster");
  RDMASTACK_ASSIGN_OR_RETURN(YAML::Node cluster,
                             FindNamed(root, "clusters", "cluster", cluster_name));

  Config config;
  config.user_agent = DefaultUserAgent();
  config.default_namespace = Scalar(context, "namespace");
  config.source = "kubeconfig context '" + context_name + "'";
  config.server = Scalar(cluster, "server");
  const std::string cluster_where = "clusters['" + cluster_name + "'].cluster";
  if (config.server.empty()) return InvalidArgumentError(cluster_where + ".server is missing");
  if (config.server.rfind("https://", 0) != 0) {
    return InvalidArgumentError(cluster_where + ".server '" + config.server +
                                "' is not an https:// URL (plain HTTP is not supported)");
  }
  while (!config.server.empty() && config.server.back() == '/') config.server.pop_back();
  RDMASTACK_ASSIGN_OR_RETURN(config.tls.ca_pem,
                             DataOrFile(cluster, "certificate-authority", cluster_where, base_dir));
  if (!config.tls.ca_pem.empty() && !LooksLikePem(config.tls.ca_pem)) {
    return InvalidArgumentError(cluster_where + ".certificate-authority holds no PEM certificate");
  }
  config.tls.server_name = Scalar(cluster, "tls-server-name");
  const std::string insecure = Scalar(cluster, "insecure-skip-tls-verify");
  if (insecure == "true") {
    if (!config.tls.ca_pem.empty()) {
      return InvalidArgumentError(cluster_where +
                                  ": certificate-authority together with insecure-skip-tls-verify "
                                  "is contradictory; remove one");
    }
    config.tls.insecure_skip_verify = true;
    spdlog::warn(
        "kubeconfig {} sets insecure-skip-tls-verify: the API server's certificate will NOT "
        "be verified",
        config.source);
  }

  if (user_name.empty()) return config;  // anonymous
  RDMASTACK_ASSIGN_OR_RETURN(YAML::Node user, FindNamed(root, "users", "user", user_name));
  const std::string user_where = "users['" + user_name + "'].user";
  if (user["exec"]) {
    return UnimplementedError(user_where +
                              ".exec: credential plugins are not supported; use a "
                              "token, a token file or a client certificate");
  }
  if (user["auth-provider"]) {
    return UnimplementedError(user_where +
                              ".auth-provider is not supported; use a token or a "
                              "client certificate");
  }
  if (!Scalar(user, "username").empty() || !Scalar(user, "password").empty()) {
    return UnimplementedError(user_where + ": basic auth (username/password) is not supported");
  }
  RDMASTACK_ASSIGN_OR_RETURN(config.tls.client_cert_pem,
                             DataOrFile(user, "client-certificate", user_where, base_dir));
  RDMASTACK_ASSIGN_OR_RETURN(config.tls.client_key_pem,
                             DataOrFile(user, "client-key", user_where, base_dir));
  if (config.tls.client_cert_pem.empty() != config.tls.client_key_pem.empty()) {
    return InvalidArgumentError(user_where +
                                ": client-certificate and client-key must be given together");
  }
  if (!config.tls.client_cert_pem.empty() &&
      (!LooksLikePem(config.tls.client_cert_pem) || !LooksLikePem(config.tls.client_key_pem))) {
    return InvalidArgumentError(user_where + ": client certificate or key is not PEM");
  }
  const std::string token = Scalar(user, "token");
  const std::string token_file = Scalar(user, "tokenFile");
  if (!token.empty()) {
    config.token = std::make_shared<StaticTokenSource>(token);
  } else if (!token_file.empty()) {
    auto source = std::make_shared<FileTokenSource>(ResolvePath(token_file, base_dir), clock);
    auto first = source->Token();  // fail now, not on the first request
    if (!first.ok()) return first.status().WithContext(user_where + ".tokenFile");
    config.token = std::move(source);
  }
  return config;
}

}  // namespace

std::string DefaultUserAgent() {
  return std::string("rdmastack-operator/") + kVersion;
}

StatusOr<std::string> ReadFileToString(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return NotFoundError("cannot read '" + path + "': " + std::strerror(errno));
  }
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad()) return InternalError("error reading '" + path + "'");
  return out.str();
}

std::string EncodeBase64(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

StatusOr<std::string> DecodeBase64(std::string_view text) {
  static constexpr std::string_view kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=";
  // OpenSSL skips whitespace too, but stops silently at '-' (its PEM end marker): checking the
  // alphabet here turns that, like any other stray byte, into an error that names the offset.
  std::string symbols;
  symbols.reserve(text.size() + 2);
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (kAlphabet.find(c) == std::string_view::npos) {
      return InvalidArgumentError("invalid base64 at offset " + std::to_string(i));
    }
    symbols.push_back(c);
  }
  // Unpadded input is accepted (OpenSSL wants whole 4-symbol groups); padded input must be whole.
  const bool padded = symbols.find('=') != std::string::npos;
  if (symbols.size() % 4 == 1 || (padded && symbols.size() % 4 != 0) ||
      symbols.size() > static_cast<size_t>(std::numeric_limits<int>::max() - 3)) {
    return InvalidArgumentError("invalid base64: bad length or padding");
  }
  symbols.append((4 - symbols.size() % 4) % 4, '=');
  std::unique_ptr<EVP_ENCODE_CTX, decltype(&EVP_ENCODE_CTX_free)> ctx(EVP_ENCODE_CTX_new(),
                                                                      &EVP_ENCODE_CTX_free);
  if (!ctx) return ResourceExhaustedError("out of memory decoding base64");
  EVP_DecodeInit(ctx.get());
  std::string out(symbols.size() / 4 * 3, '\0');
  auto* dst = reinterpret_cast<unsigned char*>(out.data());
  int written = 0;
  int final_written = 0;
  if (EVP_DecodeUpdate(ctx.get(), dst, &written,
                       reinterpret_cast<const unsigned char*>(symbols.data()),
                       static_cast<int>(symbols.size())) < 0 ||
      EVP_DecodeFinal(ctx.get(), dst + written, &final_written) != 1) {
    return InvalidArgumentError("invalid base64: bad length or padding");
  }
  out.resize(static_cast<size_t>(written + final_written));
  return out;
}

FileTokenSource::FileTokenSource(std::string path, Clock& clock, std::chrono::seconds refresh)
    : path_(std::move(path)), clock_(clock), refresh_(refresh) {}

StatusOr<std::string> FileTokenSource::Token() {
  std::lock_guard<std::mutex> lock(mu_);
  const auto now = clock_.Now();
  if (loaded_ && now < next_read_) return token_;
  auto content = ReadFileToString(path_);
  std::string token = content.ok() ? Trim(*content) : std::string();
  if (token.empty()) {
    Status error = content.ok() ? UnauthenticatedError("token file '" + path_ + "' is empty")
                                : content.status();
    if (!loaded_) return error;
    spdlog::warn("keeping the previous bearer token: {}", error.ToString());
    next_read_ = now + refresh_;
    return token_;
  }
  token_ = std::move(token);
  loaded_ = true;
  next_read_ = now + refresh_;
  return token_;
}

StatusOr<Config> ParseKubeconfig(std::string_view yaml, std::string_view base_dir,
                                 std::string_view context, Clock& clock) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return InvalidArgumentError(std::string("kubeconfig is not valid YAML: ") + e.what());
  }
  try {
    return BuildFromKubeconfig(root, base_dir, context, clock);
  } catch (const YAML::Exception& e) {
    // A field of the wrong shape (e.g. a map where a string belongs).
    return InvalidArgumentError(std::string("kubeconfig has a malformed field: ") + e.what());
  }
}

StatusOr<Config> LoadKubeconfig(const std::string& path, std::string_view context, Clock& clock) {
  RDMASTACK_ASSIGN_OR_RETURN(std::string yaml, ReadFileToString(path));
  const std::string dir = std::filesystem::path(path).parent_path().string();
  auto config = ParseKubeconfig(yaml, dir, context, clock);
  if (!config.ok()) return config.status().WithContext(path);
  config->source = path + " (" + config->source + ")";
  return config;
}

StatusOr<Config> LoadInClusterConfig(const InClusterPaths& paths, Clock& clock) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || *host == '\0' || port == nullptr || *port == '\0') {
    return FailedPreconditionError(
        "not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be "
        "set");
  }
  Config config;
  config.user_agent = DefaultUserAgent();
  config.source = "in-cluster";
  std::string h(host);
  if (h.find(':') != std::string::npos && h.front() != '[') h = "[" + h + "]";  // IPv6
  config.server = "https://" + h + ":" + port;
  RDMASTACK_ASSIGN_OR_RETURN(config.tls.ca_pem, ReadFileToString(paths.ca_file));
  auto source = std::make_shared<FileTokenSource>(paths.token_file, clock);
  auto first = source->Token();
  if (!first.ok()) return first.status().WithContext("in-cluster ServiceAccount token");
  config.token = std::move(source);
  auto ns = InClusterNamespace(paths);
  if (ns.ok()) config.default_namespace = *ns;
  return config;
}

StatusOr<std::string> InClusterNamespace(const InClusterPaths& paths) {
  RDMASTACK_ASSIGN_OR_RETURN(std::string ns, ReadFileToString(paths.namespace_file));
  return Trim(std::move(ns));
}

StatusOr<Config> LoadDefaultConfig(const std::string& kubeconfig_path) {
  if (!kubeconfig_path.empty()) return LoadKubeconfig(kubeconfig_path);
  const char* env = std::getenv("KUBECONFIG");
  if (env != nullptr && *env != '\0') {
    std::string first(env);
    first = first.substr(0, first.find(':'));  // merging several files is not supported
    return LoadKubeconfig(first);
  }
  return LoadInClusterConfig();
}

}  // namespace rdmastack::k8s
