#pragma once
// Brings one gateway in line with a profile's S3 user (s3_user.h): the current keys exist, the
// listed buckets exist and grant the current (and, in its grace period, the previous) key, no
// other bucket grants the profile anything, and no other user of the profile is left. With no
// current keys it removes everything of the profile's. Buckets and objects are never deleted.

#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "lib/s3/versitygw_admin.h"

namespace rdmastack::clientprofile {

struct S3UserGrant {
  std::string key_prefix;                  // S3UserKeyPrefix
  std::string statement_id;                // S3UserStatementId
  std::optional<s3::Credentials> current;  // nullopt: the profile is going
  std::string previous_access_key;         // kept while in grace; "" for none
  std::vector<std::string> buckets;
};

Status SyncS3UserGrant(const s3::VersitygwAdmin& gateway, const S3UserGrant& grant);

}  // namespace rdmastack::clientprofile
