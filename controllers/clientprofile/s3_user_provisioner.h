#pragma once
// The I/O shell of spec.s3User: keeps the profile's keys Secret (made, rotated on a new
// spec.s3User.rotation) and the user and its bucket grants on every ready gateway of the pool
// (s3_user_sync.h), as the pool's root user. A gateway that already has the current state (same
// keys, previous key, buckets) is not asked again until that state or the gateway's endpoint
// changes.

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "controllers/clientprofile/client_workload.h"
#include "controllers/clientprofile/s3_user.h"
#include "controllers/clientprofile/s3_user_sync.h"
#include "controllers/common/namespaced_cache.h"
#include "crds/types/types.h"
#include "lib/s3/versitygw_admin.h"
#include "operator/k8s/client.h"
#include "operator/runtime/store.h"

namespace rdmastack::clientprofile {

class S3UserProvisioner {
 public:
  // `max_answer_bytes`: the most the operator reads of one gateway answer (s3::VersitygwAdmin).
  S3UserProvisioner(k8s::Client& client, controllers::NamespacedCache secrets, const Clock& clock,
                    uint64_t max_answer_bytes = s3::kDefaultMaxAnswerBytes)
      : client_(client),
        secrets_(std::move(secrets)),
        clock_(clock),
        max_answer_bytes_(max_answer_bytes) {}

  struct Outcome {
    std::optional<crd::S3UserStatus> status;
    std::string problem;                                      // "" when every gateway has the user
    Clock::Duration requeue_after = Clock::Duration::zero();  // grace end or a retry
  };
  // `ca_pem`: the pool's CA for an https pool, else "".
  Outcome Sync(const crd::ClientProfile& profile, const crd::GatewayPool& pool,
               const std::vector<PoolEndpoint>& endpoints, const std::string& ca_pem);
  // Removes the profile's users and grants from every endpoint; returns one line per gateway it
  // could not clean (those keep a user nobody has the keys of, until a profile of the same
  // namespace and name comes back).
  std::vector<std::string> Remove(const crd::ClientProfile& profile, const crd::GatewayPool& pool,
                                  const std::vector<PoolEndpoint>& endpoints,
                                  const std::string& ca_pem);

 private:
  struct Gateways {
    int32_t done = 0;
    std::vector<std::string> failures;
  };
  StatusOr<S3UserSecret> EnsureSecret(const crd::ClientProfile& profile);
  Gateways Apply(const crd::ClientProfile& profile, const crd::GatewayPool& pool,
                 const std::vector<PoolEndpoint>& endpoints, const std::string& ca_pem,
                 const S3UserGrant& grant, const std::string& fingerprint);

  k8s::Client& client_;
  const controllers::NamespacedCache secrets_;
  const Clock& clock_;
  const uint64_t max_answer_bytes_;
  std::mutex mu_;
  // "<ns>/<profile>|<pool uid>|<address>:<port>" -> fingerprint of the state that gateway has.
  std::map<std::string, std::string> synced_;
  struct CachedSecret {
    std::string resource_version;
    S3UserSecret state;
  };
  std::map<std::string, CachedSecret> secret_values_;  // "<ns>/<secret>"
};

}  // namespace rdmastack::clientprofile
