#include "controllers/clientprofile/s3_user_sync.h"

#include <algorithm>
#include <set>

#include "controllers/clientprofile/s3_user.h"

namespace rdmastack::clientprofile {

Status SyncS3UserGrant(const s3::VersitygwAdmin& gateway, const S3UserGrant& grant) {
  RDMASTACK_ASSIGN_OR_RETURN(auto users, gateway.ListUsers());
  std::vector<std::string> keep;
  if (grant.current) {
    const s3::Credentials& c = *grant.current;
    if (auto it = users.find(c.access_key_id); it == users.end()) {
      RDMASTACK_RETURN_IF_ERROR(gateway.CreateUser(c));
    } else if (it->second != c.secret_access_key) {
      RDMASTACK_RETURN_IF_ERROR(gateway.UpdateUserSecret(c));
    }
    keep.push_back(c.access_key_id);
    // A previous key this gateway never had (it came up after the rotation) is not made.
    if (!grant.previous_access_key.empty() && users.count(grant.previous_access_key) != 0)
      keep.push_back(grant.previous_access_key);
  }

  // The users this gateway holds once the current one is made: statements of gone profiles that
  // name others are dropped (WithoutStaleProfileStatements).
  std::set<std::string> known;
  for (const auto& [access, secret] : users) known.insert(access);
  if (grant.current) known.insert(grant.current->access_key_id);
  // Statements first: a policy naming a user that no longer exists would be refused on its next
  // write, by us or by the bucket's owner.
  RDMASTACK_ASSIGN_OR_RETURN(std::vector<std::string> existing, gateway.ListBuckets());
  const std::set<std::string> have(existing.begin(), existing.end());
  std::set<std::string> buckets(existing.begin(), existing.end());
  buckets.insert(grant.buckets.begin(), grant.buckets.end());
  for (const std::string& bucket : buckets) {
    const bool listed = grant.current && std::find(grant.buckets.begin(), grant.buckets.end(),
                                                   bucket) != grant.buckets.end();
    if (listed && have.count(bucket) == 0) RDMASTACK_RETURN_IF_ERROR(gateway.CreateBucket(bucket));
    RDMASTACK_ASSIGN_OR_RETURN(std::string policy, gateway.GetBucketPolicy(bucket));
    if (!listed && policy.find(grant.statement_id) == std::string::npos) continue;
    RDMASTACK_ASSIGN_OR_RETURN(std::string live, WithoutStaleProfileStatements(policy, known));
    RDMASTACK_ASSIGN_OR_RETURN(std::string wanted,
                               WithProfileStatement(live, grant.statement_id, bucket,
                                                    listed ? keep : std::vector<std::string>{}));
    if (wanted == policy) continue;
    if (!policy.empty() && !wanted.empty()) {
      // Same document in another spelling (versitygw may store it reformatted).
      auto a = k8s::JsonObject::Parse(policy);
      auto b = k8s::JsonObject::Parse(wanted);
      if (a.ok() && b.ok() && *a == *b) continue;
    }
    RDMASTACK_RETURN_IF_ERROR(gateway.PutBucketPolicy(bucket, wanted));
  }

  for (const auto& [access, secret] : users) {
    if (access.rfind(grant.key_prefix, 0) != 0) continue;
    if (std::find(keep.begin(), keep.end(), access) != keep.end()) continue;
    RDMASTACK_RETURN_IF_ERROR(gateway.DeleteUser(access));
  }
  return OkStatus();
}

}  // namespace rdmastack::clientprofile
