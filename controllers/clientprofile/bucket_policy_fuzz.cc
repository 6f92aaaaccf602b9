// Fuzzes the bucket-policy merge a profile's S3 user goes through (s3_user.h): whatever policy a
// gateway holds, adding the profile's statement gives a policy with exactly one statement of that
// Sid, adding it again changes nothing, removing it leaves none, and dropping stale statements
// never fails on what the merge produced.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "controllers/clientprofile/s3_user.h"
#include "operator/k8s/json_object.h"

namespace {

using namespace rdmastack;

int StatementsWithSid(const std::string& policy, std::string_view sid) {
  if (policy.empty()) return 0;
  auto doc = k8s::JsonObject::Parse(policy);
  if (!doc.ok()) std::abort();  // the merge always writes JSON
  int n = 0;
  for (const k8s::JsonObject& st : doc->GetArray({"Statement"})) {
    if (st.GetString({"Sid"}) == sid) ++n;
  }
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view policy(reinterpret_cast<const char*>(data), size);
  const std::string sid = "rdmastack0123abcd";
  const std::vector<std::string> principals = {"RS0123abcd0000000000"};
  auto added = clientprofile::WithProfileStatement(policy, sid, "smoke", principals);
  if (!added.ok()) return 0;  // not a policy document: refused, never guessed at
  if (StatementsWithSid(*added, sid) != 1) std::abort();
  auto again = clientprofile::WithProfileStatement(*added, sid, "smoke", principals);
  if (!again.ok() || *again != *added) std::abort();
  auto removed = clientprofile::WithProfileStatement(*added, sid, "smoke", {});
  if (!removed.ok() || StatementsWithSid(*removed, sid) != 0) std::abort();
  if (!clientprofile::WithoutStaleProfileStatements(*added, {principals[0]}).ok()) std::abort();
  return 0;
}
