#include "lib/s3/versitygw_admin.h"

namespace rdmastack::s3 {
namespace {

std::string AccountXml(const Credentials& user) {
  // versitygw decodes the body into its auth.Account with Go's encoding/xml: element names are
  // the field names.
  return "<Account><Access>" + user.access_key_id + "</Access><Secret>" + user.secret_access_key +
         "</Secret><Role>user</Role></Account>";
}

}  // namespace

StatusOr<HttpResponse> VersitygwAdmin::Call(const std::string& what, S3Request request) const {
  request.response_limit = {max_answer_bytes_, BodyLimit::Over::kFail};
  StatusOr<HttpResponse> r = root_.Send(request);
  if (!r.ok()) return r.status().WithContext(what + " on " + root_.endpoint().ToString());
  if (r->status >= 200 && r->status < 300) return r;
  const std::string code = S3ErrorCode(r->body);
  const std::string text = what + " on " + root_.endpoint().ToString() + ": HTTP " +
                           std::to_string(r->status) + (code.empty() ? "" : " " + code);
  if (r->status == 404) return NotFoundError(text);
  if (r->status == 403) return PermissionDeniedError(text);
  return FailedPreconditionError(text);
}

StatusOr<std::map<std::string, std::string>> VersitygwAdmin::ListUsers() const {
  RDMASTACK_ASSIGN_OR_RETURN(HttpResponse r,
                             Call("list-users", {"PATCH", "/list-users", {}, "", {}}));
  std::map<std::string, std::string> users;
  for (std::string_view account : XmlElementTexts(r.body, "Accounts")) {
    const std::vector<std::string_view> access = XmlElementTexts(account, "Access");
    const std::vector<std::string_view> secret = XmlElementTexts(account, "Secret");
    if (access.size() == 1) users[std::string(access[0])] = secret.empty() ? "" : secret[0];
  }
  return users;
}

Status VersitygwAdmin::CreateUser(const Credentials& user) const {
  return Call("create-user " + user.access_key_id,
              {"PATCH", "/create-user", {}, AccountXml(user), {}})
      .status();
}

Status VersitygwAdmin::UpdateUserSecret(const Credentials& user) const {
  return Call("update-user " + user.access_key_id,
              {"PATCH",
               "/update-user",
               {{"access", user.access_key_id}},
               "<MutableProps><Secret>" + user.secret_access_key + "</Secret></MutableProps>",
               {}})
      .status();
}

Status VersitygwAdmin::DeleteUser(const std::string& access_key_id) const {
  return Call("delete-user " + access_key_id,
              {"PATCH", "/delete-user", {{"access", access_key_id}}, "", {}})
      .status();
}

StatusOr<std::vector<std::string>> VersitygwAdmin::ListBuckets() const {
  RDMASTACK_ASSIGN_OR_RETURN(HttpResponse r, Call("ListBuckets", {"GET", "/", {}, "", {}}));
  const std::vector<std::string_view> names = XmlElementTexts(r.body, "Name");
  return std::vector<std::string>(names.begin(), names.end());
}

Status VersitygwAdmin::CreateBucket(const std::string& bucket) const {
  return Call("CreateBucket " + bucket, {"PUT", "/" + bucket, {}, "", {}}).status();
}

StatusOr<std::string> VersitygwAdmin::GetBucketPolicy(const std::string& bucket) const {
  StatusOr<HttpResponse> r =
      Call("GetBucketPolicy " + bucket, {"GET", "/" + bucket, {{"policy", ""}}, "", {}});
  if (r.status().code() == StatusCode::kNotFound) return std::string();  // NoSuchBucketPolicy
  if (!r.ok()) return r.status();
  return std::move(r->body);
}

Status VersitygwAdmin::PutBucketPolicy(const std::string& bucket, const std::string& policy) const {
  if (policy.empty())
    return Call("DeleteBucketPolicy " + bucket, {"DELETE", "/" + bucket, {{"policy", ""}}, "", {}})
        .status();
  return Call("PutBucketPolicy " + bucket, {"PUT", "/" + bucket, {{"policy", ""}}, policy, {}})
      .status();
}

}  // namespace rdmastack::s3
