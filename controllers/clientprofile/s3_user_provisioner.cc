#include "controllers/clientprofile/s3_user_provisioner.h"

#include <spdlog/spdlog.h>

#include "base/rfc3339.h"
#include "base/sha256.h"
#include "controllers/common/credentials_secret.h"
#include "controllers/common/parallel.h"
#include "controllers/common/render.h"
#include "lib/s3/http.h"
#include "lib/s3/s3_client.h"
#include "lib/s3/versitygw_admin.h"

namespace rdmastack::clientprofile {
namespace {

constexpr size_t kGatewayThreads = 8;
constexpr std::chrono::milliseconds kGatewayTimeout{5000};
constexpr std::chrono::seconds kRetryAfter{15};
constexpr size_t kListedFailures = 3;
constexpr std::string_view kRaiseAnswerLimit =
    " (if the gateway really holds that many users, buckets or policy statements, raise "
    "--gateway-answer-max-size, the chart's operator.gatewayAnswerMaxSize)";

// synced_ keys: the profile's prefix, then the pool's UID and the gateway's address:port.
std::string SyncedPrefix(const crd::ClientProfile& profile) {
  return profile.metadata.namespace_.value_or("") + "/" + profile.metadata.name + "|";
}
std::string HostPort(const PoolEndpoint& e) {
  return e.address + ":" + std::to_string(e.s3_port);
}

// The Secret's owner is this profile (the Secrets cache keeps owner references, not labels).
bool OwnedBy(const k8s::JsonObject& secret, const crd::ClientProfile& profile) {
  for (const k8s::OwnerReference& owner : secret.OwnerReferences()) {
    if (owner.kind == "ClientProfile" && owner.uid == profile.metadata.uid.value_or(""))
      return true;
  }
  return false;
}

std::string Joined(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < kListedFailures; ++i)
    out += (out.empty() ? "" : "; ") + items[i];
  if (items.size() > kListedFailures)
    out += "; and " + std::to_string(items.size() - kListedFailures) + " more";
  return out;
}

}  // namespace

StatusOr<S3UserSecret> S3UserProvisioner::EnsureSecret(const crd::ClientProfile& profile) {
  const std::string ns = profile.metadata.namespace_.value_or("");
  const std::string name = S3UserSecretName(profile.metadata.name);
  const std::string key = ns + "/" + name;
  const crd::S3UserSpec& spec = *profile.spec.s3_user;
  const runtime::ObjectPtr cached = secrets_.Get(key);

  auto not_ours = [&] {
    return FailedPreconditionError("Secret " + key +
                                   " exists and is not this profile's (no owner reference to "
                                   "it); rename or delete that Secret");
  };
  std::optional<S3UserSecret> current;
  std::string resource_version;
  bool exists = cached != nullptr;
  if (cached != nullptr) {
    if (!OwnedBy(*cached, profile)) return not_ours();
    resource_version = std::string(cached->ResourceVersion());
    std::lock_guard lock(mu_);
    if (auto it = secret_values_.find(key);
        it != secret_values_.end() && it->second.resource_version == resource_version)
      current = it->second.state;
  }
  // Not in the cache may mean not there yet (just written): a GET tells.
  if (!current) {
    StatusOr<k8s::JsonObject> object = client_.Get(k8s::kinds::Secret(), ns, name);
    if (object.ok()) {
      if (!OwnedBy(*object, profile)) return not_ours();
      exists = true;
      resource_version = std::string(object->ResourceVersion());
      // Keys someone emptied are replaced like a rotation.
      if (auto read = ReadS3UserSecret(*object); read.ok()) current = *read;
    } else if (object.status().code() != StatusCode::kNotFound) {
      return object.status().WithContext("reading Secret " + key);
    }
  }
  if (current && current->rotation == spec.rotation) {
    std::lock_guard lock(mu_);
    secret_values_[key] = {resource_version, *current};
    return *current;
  }

  S3UserSecret next;
  RDMASTACK_ASSIGN_OR_RETURN(next.keys, NewS3UserKeys(S3UserKeyPrefix(ns, profile.metadata.name)));
  next.rotation = spec.rotation;
  if (current) {
    next.previous_access_key = current->keys.access_key_id;
    next.rotated_at = clock_.WallNow();
  }
  k8s::JsonObject desired = RenderS3UserSecret(profile, next);
  StatusOr<k8s::JsonObject> written = InternalError("unset");
  if (!exists) {
    written = client_.Create(k8s::kinds::Secret(), desired);
  } else {
    desired.SetResourceVersion(resource_version);
    written = client_.Update(k8s::kinds::Secret(), desired);
  }
  if (!written.ok()) return written.status().WithContext("writing Secret " + key);
  spdlog::info("clientprofile {}/{}: S3 user keys {} in Secret {}{}", ns, profile.metadata.name,
               next.keys.access_key_id, name,
               current ? " (rotated; previous " + next.previous_access_key + ")" : "");
  std::lock_guard lock(mu_);
  secret_values_[key] = {std::string(written->ResourceVersion()), next};
  return next;
}

S3UserProvisioner::Gateways S3UserProvisioner::Apply(const crd::ClientProfile& profile,
                                                     const crd::GatewayPool& pool,
                                                     const std::vector<PoolEndpoint>& endpoints,
                                                     const std::string& ca_pem,
                                                     const S3UserGrant& grant,
                                                     const std::string& fingerprint) {
  Gateways out;
  // The pool's UID too: a pool created again under the same name has gateways at the same
  // addresses with an empty IAM directory of their own (gateway_daemonset.h IamHostDir).
  const std::string prefix = SyncedPrefix(profile) + pool.metadata.uid.value_or("") + "|";
  std::vector<size_t> todo;
  {
    std::lock_guard lock(mu_);
    for (size_t i = 0; i < endpoints.size(); ++i) {
      auto it = synced_.find(prefix + HostPort(endpoints[i]));
      if (it != synced_.end() && it->second == fingerprint && !fingerprint.empty())
        ++out.done;
      else
        todo.push_back(i);
    }
  }
  if (todo.empty()) return out;
  // The root keys only when some gateway needs a call: the cache holds no Secret values.
  const crd::CredentialsSecretRef& creds = pool.spec.s3.credentials_secret;
  StatusOr<std::vector<std::string>> root =
      controllers::ReadSecretValues(client_, pool.metadata.namespace_.value_or(""), creds.name,
                                    {creds.access_key_id_key, creds.secret_access_key_key});
  if (!root.ok()) {
    out.failures.push_back("the pool's root keys: " + std::string(root.status().message()));
    return out;
  }
  std::vector<Status> results(todo.size());
  controllers::ParallelFor(todo.size(), kGatewayThreads, [&](size_t t) {
    const PoolEndpoint& e = endpoints[todo[t]];
    s3::BeastHttpTransport transport(s3::TlsOptions{.ca_pem = ca_pem});
    s3::S3Client root_client(transport,
                             s3::Endpoint{pool.spec.s3.tls_secret ? "https" : "http", e.address,
                                          static_cast<uint16_t>(e.s3_port)},
                             {(*root)[0], (*root)[1]}, pool.spec.s3.region, clock_,
                             kGatewayTimeout);
    results[t] = SyncS3UserGrant(s3::VersitygwAdmin(root_client, max_answer_bytes_), grant);
  });
  std::lock_guard lock(mu_);
  for (size_t t = 0; t < todo.size(); ++t) {
    const PoolEndpoint& e = endpoints[todo[t]];
    const std::string key = prefix + HostPort(e);
    if (results[t].ok()) {
      ++out.done;
      synced_[key] = fingerprint;
    } else {
      synced_.erase(key);
      // An answer over the limit is the one failure the operator's own flag can cure, when the
      // gateway really holds that many users or buckets.
      const bool over_limit = results[t].code() == StatusCode::kResourceExhausted;
      out.failures.push_back("gateway on " + e.node + " (" + HostPort(e) +
                             "): " + std::string(results[t].message()) +
                             (over_limit ? std::string(kRaiseAnswerLimit) : ""));
    }
  }
  return out;
}

S3UserProvisioner::Outcome S3UserProvisioner::Sync(const crd::ClientProfile& profile,
                                                   const crd::GatewayPool& pool,
                                                   const std::vector<PoolEndpoint>& endpoints,
                                                   const std::string& ca_pem) {
  Outcome out;
  const std::string ns = profile.metadata.namespace_.value_or("");
  const crd::S3UserSpec& spec = *profile.spec.s3_user;
  StatusOr<S3UserSecret> secret = EnsureSecret(profile);
  if (!secret.ok()) {
    out.problem = std::string(secret.status().message());
    out.requeue_after = kRetryAfter;
    return out;
  }
  const Clock::WallTime now = clock_.WallNow();
  S3UserGrant grant{S3UserKeyPrefix(ns, profile.metadata.name),
                    S3UserStatementId(ns, profile.metadata.name), secret->keys,
                    PreviousKeyInGrace(*secret, spec, now), spec.buckets};
  std::string fingerprint = grant.current->access_key_id + "|" + grant.current->secret_access_key +
                            "|" + grant.previous_access_key;
  for (const std::string& b : grant.buckets) fingerprint += "|" + b;
  fingerprint = Sha256Hex(fingerprint);

  const Gateways gateways = Apply(profile, pool, endpoints, ca_pem, grant, fingerprint);
  crd::S3UserStatus status;
  status.secret_name = S3UserSecretName(profile.metadata.name);
  status.access_key_id = secret->keys.access_key_id;
  if (secret->rotated_at) status.rotated_at = FormatRfc3339(*secret->rotated_at);
  status.gateways = gateways.done;
  status.gateways_of_endpoints =
      std::to_string(gateways.done) + "/" + std::to_string(endpoints.size());
  out.status = status;
  if (!gateways.failures.empty()) {
    out.problem = std::to_string(gateways.failures.size()) + " of " +
                  std::to_string(endpoints.size()) +
                  " gateways do not have the S3 user yet: " + Joined(gateways.failures);
    out.requeue_after = kRetryAfter;
  }
  if (!grant.previous_access_key.empty()) {
    // Come back when the previous key's grace ends, to remove it.
    const auto left = *secret->rotated_at + std::chrono::seconds(spec.previous_key_grace_seconds) -
                      now + std::chrono::seconds(1);
    const auto wait = std::chrono::duration_cast<Clock::Duration>(left);
    if (out.requeue_after == Clock::Duration::zero() || wait < out.requeue_after)
      out.requeue_after = wait;
  }
  return out;
}

std::vector<std::string> S3UserProvisioner::Remove(const crd::ClientProfile& profile,
                                                   const crd::GatewayPool& pool,
                                                   const std::vector<PoolEndpoint>& endpoints,
                                                   const std::string& ca_pem) {
  const std::string ns = profile.metadata.namespace_.value_or("");
  const S3UserGrant grant{S3UserKeyPrefix(ns, profile.metadata.name),
                          S3UserStatementId(ns, profile.metadata.name),
                          std::nullopt,
                          "",
                          {}};
  Gateways gateways = Apply(profile, pool, endpoints, ca_pem, grant, /*fingerprint=*/"");
  std::lock_guard lock(mu_);
  const std::string prefix = SyncedPrefix(profile);
  for (auto it = synced_.lower_bound(prefix);
       it != synced_.end() && it->first.rfind(prefix, 0) == 0;)
    it = synced_.erase(it);
  secret_values_.erase(ns + "/" + S3UserSecretName(profile.metadata.name));
  return gateways.failures;
}

}  // namespace rdmastack::clientprofile
