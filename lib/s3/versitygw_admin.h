#pragma once
// The calls the operator makes, as the pool's root user, to keep per-profile S3 users on one
// versitygw: its admin API (internal IAM, --iam-dir) for the users, and plain S3 for the buckets
// and their policies. Each call is one signed request; an S3 error comes back as a Status naming
// the call, the HTTP status and the S3 error code.

#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "lib/s3/s3_client.h"

namespace rdmastack::s3 {

class VersitygwAdmin {
 public:
  explicit VersitygwAdmin(const S3Client& root) : root_(root) {}

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
  // Sends and maps an answer outside 2xx to an error naming `what`.
  StatusOr<HttpResponse> Call(const std::string& what, const S3Request& request) const;
  const S3Client& root_;
};

}  // namespace rdmastack::s3
