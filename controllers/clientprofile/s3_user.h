#pragma once
// A ClientProfile's S3 user (spec.s3User), the pure part: its keys and their Secret, which access
// keys and bucket-policy statements are the profile's, and the statement it wants in each bucket's
// policy. s3_user_sync.h applies that to a gateway.
//
// The profile's users and statements are found by name, not by a record of what was written: its
// access key ids start with a prefix derived from the profile's namespace and name, and its
// statements carry a Sid derived the same way. So a rotation's old key, a bucket dropped from the
// list, or a deleted profile is cleaned up on every gateway that still has them.

#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "crds/types/clientprofile_api.h"
#include "crds/types/types.h"
#include "lib/s3/sigv4.h"
#include "operator/k8s/json_object.h"

namespace rdmastack::clientprofile {

inline constexpr char kS3UserAccessKeyKey[] = "accessKeyId";
inline constexpr char kS3UserSecretKeyKey[] = "secretAccessKey";
inline constexpr char kS3UserComponent[] = "s3-user";
// "<profile>-s3-user"
std::string S3UserSecretName(std::string_view profile);

// The Secret the client data plane signs with: credentialsSecret, or the s3User's Secret.
std::optional<crd::CredentialsSecretRef> ClientCredentials(const crd::ClientProfile& profile);

// "RS" + 8 hex digits of SHA-256("<ns>/<name>"): every access key id of the profile starts so.
std::string S3UserKeyPrefix(std::string_view ns, std::string_view name);
// The Sid of the profile's statement in a bucket policy.
std::string S3UserStatementId(std::string_view ns, std::string_view name);

// 20-character access key id (prefix + random A-Z0-9) and a 40-character secret, from `random`
// (at least 40 bytes).
s3::Credentials S3UserKeysFrom(std::string_view prefix, std::string_view random);
// The same with bytes from OpenSSL's CSPRNG.
StatusOr<s3::Credentials> NewS3UserKeys(std::string_view prefix);

// What the profile's Secret says.
struct S3UserSecret {
  s3::Credentials keys;
  std::string rotation;
  std::string previous_access_key;  // "" when none
  std::optional<std::chrono::system_clock::time_point> rotated_at;
};
// Reads it from the Secret object (a GET: the cache holds no values); an error when either key is
// missing or empty.
StatusOr<S3UserSecret> ReadS3UserSecret(const k8s::JsonObject& secret);
// The Secret (owned by the profile, which garbage-collects it) holding `state`.
k8s::JsonObject RenderS3UserSecret(const crd::ClientProfile& profile, const S3UserSecret& state);

// The previous key while it is within the grace period after `rotated_at`, else "".
std::string PreviousKeyInGrace(const S3UserSecret& state, const crd::S3UserSpec& spec,
                               std::chrono::system_clock::time_point now);

// `policy` (a bucket policy document; "" for none) with the statement `sid` granting `principals`
// every S3 action on `bucket` and its objects, or without that statement when `principals` is
// empty. Other statements are kept as they are. "" when no statement is left; an error when
// `policy` is not a policy document.
StatusOr<std::string> WithProfileStatement(std::string_view policy, std::string_view sid,
                                           std::string_view bucket,
                                           const std::vector<std::string>& principals);

// `policy` without the statements of profiles that are gone from this gateway: an rdmastack
// statement (Sid "rdmastack" + 8 hex digits) naming an access key `users` does not hold. Such a
// statement is left when a bucket outlives its gateway's IAM (a pool deleted and made again on the
// same backend); versitygw refuses a policy naming an unknown principal (MalformedPolicy), so
// every later write of that bucket's policy would fail. Other statements are kept as they are.
StatusOr<std::string> WithoutStaleProfileStatements(std::string_view policy,
                                                    const std::set<std::string>& users);

}  // namespace rdmastack::clientprofile
