#pragma once
// The calls the operator makes, as the pool's root user, to keep per-profile S3 users on one
// versitygw: its admin API (internal IAM, --iam-dir) for the users, and plain S3 for the buckets
// and their policies. Each call is one signed request; an S3 error comes back as a Status naming
// the call, the HTTP status and the S3 error code.
//
// Every answer is read up to one limit, `max_answer_bytes`: list-users and ListBuckets grow with
// the gateway's users and buckets, a bucket policy with the profiles granted the bucket, and the
// others answer an empty body or an S3 error. One limit for all, because the gateway (a tenant's
// image) chooses which answer to make large, and every pass starts with list-users: a smaller
// limit on the other calls would not lower what one pass may hold. Longer is kResourceExhausted.

#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "lib/s3/s3_client.h"

namespace rdmastack::s3 {

// versitygw answers list-users with about 200 bytes per user of the operator's (20-byte access
// key, 40-byte secret, role and ids as XML elements): 4 MiB holds some 20,000 of them, 10,000
// profiles in the middle of a key rotation.
inline constexpr uint64_t kDefaultMaxAnswerBytes = uint64_t{4} << 20;

class VersitygwAdmin {
 public:
  explicit VersitygwAdmin(const S3Client& root, uint64_t max_answer_bytes = kDefaultMaxAnswerBytes)
      : root_(root), max_answer_bytes_(max_answer_bytes) {}

  // access key id -> secret of every user the gateway's IAM holds (root not included).
  StatusOr<std::map<std::string, std::string>> ListUsers() const;
  // A user with role "user": it sees and uses only what bucket policies grant it.
  Status CreateUser(const Credentials& user) const;
  Status UpdateUserSecret(const Credentials& user) const;
  Status DeleteUser(const std::string& access_key_id) const;

  StatusOr<std::vector<std::string>> ListBuckets() const;
  Status CreateBucket(const std::string& bucket) const;
  // The policy document, or "" when the bucket has none.
  StatusOr<std::string> GetBucketPolicy(const std::string& bucket) const;
  // An empty `policy` deletes the bucket's policy.
  Status PutBucketPolicy(const std::string& bucket, const std::string& policy) const;

 private:
  // Sends (reading at most max_answer_bytes_) and maps an answer outside 2xx to an error naming
  // `what`.
  StatusOr<HttpResponse> Call(const std::string& what, S3Request request) const;
  const S3Client& root_;
  const uint64_t max_answer_bytes_;
};

}  // namespace rdmastack::s3
