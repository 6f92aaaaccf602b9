#include "servers/agenthub/hub_certificates.h"

#include <openssl/evp.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "operator/k8s/api_error.h"
#include "operator/k8s/config.h"

namespace rdmastack::agenthub {
namespace {

// data[key] of a Secret, decoded; "" when absent or not base64.
std::string SecretValue(const k8s::JsonObject& secret, const char* key) {
  auto encoded = secret.GetString({"data", key});
  if (!encoded) return "";
  auto decoded = k8s::DecodeBase64(*encoded);
  return decoded.ok() ? *decoded : "";
}

Status SetSecretData(k8s::JsonObject& secret, const std::map<std::string, std::string>& data) {
  std::map<std::string, std::string> encoded;
  for (const auto& [k, v] : data) encoded[k] = k8s::EncodeBase64(v);
  secret.Remove({"data"});
  return secret.SetStringMap({"data"}, encoded);
}

std::string SecretRef(const std::string& ns, const std::string& name) {
  return "Secret " + ns + "/" + name;
}

}  // namespace

HubCertificates::HubCertificates(k8s::Client& reader, k8s::Client& writer, Clock& clock,
                                 HubCertificateOptions options)
    : reader_(reader), writer_(writer), clock_(clock), options_(std::move(options)) {}

HubCertificates::~HubCertificates() {
  Stop();
  if (options_.identity_dir.empty() && !dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

StatusOr<std::optional<HubCertificates::Material>> HubCertificates::FromUserSecret() {
  auto secret = reader_.Get(k8s::kinds::Secret(), options_.namespace_, options_.user_secret);
  if (!secret.ok()) {
    if (k8s::IsNotFound(secret.status())) return std::optional<Material>();
    return secret.status();
  }
  const std::string ref = SecretRef(options_.namespace_, options_.user_secret);
  Material m;
  m.serving.cert_pem = SecretValue(*secret, "tls.crt");
  m.serving.key_pem = SecretValue(*secret, "tls.key");
  m.ca_pem = SecretValue(*secret, "ca.crt");
  m.source = ref;
  if (m.ca_pem.empty()) {
    return InvalidArgumentError(ref +
                                " has no ca.crt: add the CA bundle that signs tls.crt "
                                "(agents verify the hub with it), or delete the Secret to "
                                "let the operator make its own CA");
  }
  if (auto s = CheckKeyAndCertificate(m.serving); !s.ok()) return s.WithContext(ref);
  if (auto facts = InspectCertificate(m.ca_pem); !facts.ok()) {
    return facts.status().WithContext(ref + " ca.crt");
  }
  return std::optional<Material>(std::move(m));
}

StatusOr<HubCertificates::Material> HubCertificates::FromGeneratedSecret() {
  const std::string ref = SecretRef(options_.namespace_, options_.generated_secret);
  auto secret = reader_.Get(k8s::kinds::Secret(), options_.namespace_, options_.generated_secret);
  if (!secret.ok() && !k8s::IsNotFound(secret.status())) return secret.status();
  const auto now = clock_.WallNow();

  KeyAndCertificate ca;
  Material m;
  m.source = ref;
  bool ca_usable = false;
  if (secret.ok()) {
    ca.cert_pem = SecretValue(*secret, "ca.crt");
    ca.key_pem = SecretValue(*secret, "ca.key");
    m.serving.cert_pem = SecretValue(*secret, "tls.crt");
    m.serving.key_pem = SecretValue(*secret, "tls.key");
    auto ca_facts = InspectCertificate(ca.cert_pem);
    ca_usable = ca_facts.ok() && CheckKeyAndCertificate(ca).ok() && ca_facts->not_after > now;
    // The chart makes the Secret empty: that is a first start, not a problem.
    if (!ca_usable && ca.cert_pem.empty()) {
      spdlog::info("{}: {} is empty; making a CA", options_.log_name, ref);
    } else if (!ca_usable) {
      spdlog::warn("{}: {} holds no usable CA; making a new one", options_.log_name, ref);
    }
  }
  bool renew = !ca_usable;
  if (ca_usable) {
    auto facts = InspectCertificate(m.serving.cert_pem);
    renew = !facts.ok() || !CheckKeyAndCertificate(m.serving).ok() ||
            !SignedBy(m.serving.cert_pem, ca.cert_pem) ||
            NeedsRenewal(*facts, options_.hosts, now, options_.renew_fraction);
  }
  if (!renew) {
    m.ca_pem = ca.cert_pem;
    return m;
  }
  if (!ca_usable) {
    RDMASTACK_ASSIGN_OR_RETURN(
        ca, MakeCertificateAuthority(options_.ca_common_name, now, options_.ca_validity));
  }
  RDMASTACK_ASSIGN_OR_RETURN(
      m.serving, IssueServingCertificate(ca, options_.hosts, now, options_.serving_validity));
  m.ca_pem = ca.cert_pem;

  k8s::JsonObject object = secret.ok() ? *secret : k8s::JsonObject();
  if (!secret.ok()) {
    object.SetApiVersion("v1");
    object.SetKind("Secret");
    object.SetName(options_.generated_secret);
    object.SetNamespace(options_.namespace_);
    RDMASTACK_RETURN_IF_ERROR(object.SetString({"type"}, "Opaque"));
    RDMASTACK_RETURN_IF_ERROR(
        object.SetString({"metadata", "labels", crd::kManagedByLabel}, crd::kManagedByValue));
  }
  RDMASTACK_RETURN_IF_ERROR(SetSecretData(object, {{"ca.crt", ca.cert_pem},
                                                   {"ca.key", ca.key_pem},
                                                   {"tls.crt", m.serving.cert_pem},
                                                   {"tls.key", m.serving.key_pem}}));
  k8s::WriteOptions write;
  write.field_manager = options_.field_manager;
  auto written = secret.ok() ? writer_.Update(k8s::kinds::Secret(), object, write)
                             : writer_.Create(k8s::kinds::Secret(), object, write);
  if (!written.ok()) {
    // Another writer got there first (a Conflict or AlreadyExists): the next pass reads theirs.
    return written.status().WithContext("writing " + ref);
  }
  std::string names;
  for (const auto& h : options_.hosts) names += (names.empty() ? "" : ", ") + h;
  spdlog::info("{}: {} serving certificate for [{}] in {}", options_.log_name,
               ca_usable ? "renewed the" : "made a CA and a", names, ref);
  return m;
}

Status HubCertificates::PublishCa(const std::string& ca_pem) {
  if (options_.publish_ca) return options_.publish_ca(ca_pem);
  auto cm = reader_.Get(k8s::kinds::ConfigMap(), options_.namespace_, options_.ca_config_map);
  if (!cm.ok() && !k8s::IsNotFound(cm.status())) return cm.status();
  if (cm.ok() && cm->GetString({"data", "ca.crt"}) == ca_pem) return OkStatus();
  k8s::JsonObject object = cm.ok() ? *cm : k8s::JsonObject();
  if (!cm.ok()) {
    object.SetApiVersion("v1");
    object.SetKind("ConfigMap");
    object.SetName(options_.ca_config_map);
    object.SetNamespace(options_.namespace_);
    RDMASTACK_RETURN_IF_ERROR(
        object.SetString({"metadata", "labels", crd::kManagedByLabel}, crd::kManagedByValue));
  }
  RDMASTACK_RETURN_IF_ERROR(object.SetString({"data", "ca.crt"}, ca_pem));
  k8s::WriteOptions write;
  write.field_manager = options_.field_manager;
  auto written = cm.ok() ? writer_.Update(k8s::kinds::ConfigMap(), object, write)
                         : writer_.Create(k8s::kinds::ConfigMap(), object, write);
  if (!written.ok()) {
    return written.status().WithContext("publishing the CA in ConfigMap " + options_.namespace_ +
                                        "/" + options_.ca_config_map);
  }
  return OkStatus();
}

Status HubCertificates::WriteIdentity(const Material& material) {
  const std::string path = identity_file();
  const std::string tmp = path + ".tmp";
  {
    const mode_t old = ::umask(077);
    std::ofstream out(tmp, std::ios::trunc);
    ::umask(old);
    out << material.serving.key_pem << material.serving.cert_pem;
    if (!out.flush()) return InternalError("writing " + tmp + " failed");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return InternalError("renaming " + tmp + ": " + ec.message());
  return OkStatus();
}

Status HubCertificates::Reconcile() {
  std::lock_guard<std::mutex> one_at_a_time(reconcile_mu_);
  if (dir_.empty()) {
    if (!options_.identity_dir.empty()) {
      dir_ = options_.identity_dir;
      std::error_code ec;
      std::filesystem::create_directories(dir_, ec);
      if (ec) return InternalError("creating " + dir_ + ": " + ec.message());
    } else {
      std::string tmpl = (std::filesystem::temp_directory_path() / "agenthub-tls-XXXXXX").string();
      if (::mkdtemp(tmpl.data()) == nullptr) {
        // The usual cause is a read-only root file system without a writable /tmp.
        return InternalError("mkdtemp " + tmpl + " failed: " + std::strerror(errno) +
                             " (the TLS files need a writable temporary directory: mount an "
                             "emptyDir at /tmp, as the chart does, or set TMPDIR)");
      }
      dir_ = tmpl;
    }
  }
  RDMASTACK_ASSIGN_OR_RETURN(std::optional<Material> user, FromUserSecret());
  Material material;
  if (user) {
    material = std::move(*user);
  } else {
    RDMASTACK_ASSIGN_OR_RETURN(material, FromGeneratedSecret());
  }
  RDMASTACK_RETURN_IF_ERROR(PublishCa(material.ca_pem));
  {
    std::lock_guard<std::mutex> l(mu_);
    if (material.serving.cert_pem == current_.serving.cert_pem &&
        material.serving.key_pem == current_.serving.key_pem &&
        std::filesystem::exists(identity_file())) {
      current_ = std::move(material);
      return OkStatus();
    }
  }
  RDMASTACK_RETURN_IF_ERROR(WriteIdentity(material));
  if (options_.on_identity_change) options_.on_identity_change(material.serving);
  std::lock_guard<std::mutex> l(mu_);
  if (current_.source != material.source) {
    spdlog::info("{}: serving with the certificate of {}", options_.log_name, material.source);
  }
  current_ = std::move(material);
  return OkStatus();
}

Status HubCertificates::Start() {
  RDMASTACK_RETURN_IF_ERROR(Reconcile());
  StartChecking();
  return OkStatus();
}

void HubCertificates::StartChecking() {
  std::lock_guard<std::mutex> l(mu_);
  stopping_ = false;
  thread_ = std::thread([this] { Loop(); });
}

void HubCertificates::Loop() {
  std::unique_lock<std::mutex> l(mu_);
  while (!stopping_) {
    clock_.WaitUntil(l, cv_, clock_.Now() + options_.check_interval);
    if (stopping_) return;
    l.unlock();
    if (Status s = Reconcile(); !s.ok()) {
      spdlog::warn("{}: certificate check failed (still serving the current one): {}",
                   options_.log_name, s.ToString());
    }
    l.lock();
  }
}

void HubCertificates::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stopping_ = true;
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

std::string HubCertificates::identity_file() const {
  return dir_ + "/identity.pem";
}

std::string HubCertificates::ca_pem() const {
  std::lock_guard<std::mutex> l(mu_);
  return current_.ca_pem;
}

std::string HubCertificates::cert_pem() const {
  std::lock_guard<std::mutex> l(mu_);
  return current_.serving.cert_pem;
}

std::string HubCertificates::source() const {
  std::lock_guard<std::mutex> l(mu_);
  return current_.source;
}

}  // namespace rdmastack::agenthub
