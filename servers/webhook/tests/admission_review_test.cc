#include "servers/webhook/admission_review.h"

#include <gtest/gtest.h>

#include "operator/k8s/config.h"

namespace rdmastack::webhook {
namespace {

constexpr char kReview[] = R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",
  "request":{"uid":"705ab4f5-6393-11e8-b7cc-42010a800002","kind":{"group":"","version":"v1","kind":"Pod"},
  "namespace":"ml","operation":"CREATE","object":{"metadata":{"name":"p"},"spec":{}}}})";

TEST(AdmissionReviewTest, ParsesTheFieldsTheWebhookUses) {
  auto r = ParseAdmissionReview(kReview);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->uid, "705ab4f5-6393-11e8-b7cc-42010a800002");
  EXPECT_EQ(r->kind, "Pod");
  EXPECT_EQ(r->namespace_, "ml");
  EXPECT_EQ(r->operation, "CREATE");
  EXPECT_EQ(r->object.Name(), "p");
}

TEST(AdmissionReviewTest, MalformedReviewsAreNamed) {
  EXPECT_NE(ParseAdmissionReview("{").status().message().find("not JSON"), std::string::npos);
  EXPECT_NE(ParseAdmissionReview("{}").status().message().find("no request"), std::string::npos);
  EXPECT_NE(ParseAdmissionReview(R"({"request":{"object":{}}})").status().message().find("no uid"),
            std::string::npos);
  EXPECT_NE(ParseAdmissionReview(R"({"request":{"uid":"u"}})").status().message().find("no object"),
            std::string::npos);
}

TEST(AdmissionReviewTest, AdmitCarriesTheUidAndABase64JsonPatch) {
  auto r = ParseAdmissionReview(kReview);
  ASSERT_TRUE(r.ok());
  auto ops = k8s::JsonObject::Parse(R"([{"op":"add","path":"/spec/x","value":1}])");
  ASSERT_TRUE(ops.ok());
  auto out = k8s::JsonObject::Parse(AdmitResponse(*r, *ops));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->ApiVersion(), "admission.k8s.io/v1");
  EXPECT_EQ(out->Kind(), "AdmissionReview");
  EXPECT_EQ(out->GetString({"response", "uid"}), r->uid);
  EXPECT_EQ(out->GetBool({"response", "allowed"}), true);
  EXPECT_EQ(out->GetString({"response", "patchType"}), "JSONPatch");
  auto patch = k8s::DecodeBase64(*out->GetString({"response", "patch"}));
  ASSERT_TRUE(patch.ok());
  EXPECT_EQ(*patch, ops->Serialize());
  auto unchanged = k8s::JsonObject::Parse(AdmitResponse(*r, k8s::JsonObject::Array()));
  ASSERT_TRUE(unchanged.ok());
  EXPECT_FALSE(unchanged->Has({"response", "patch"}));
  EXPECT_FALSE(unchanged->Has({"response", "patchType"}));
}

TEST(AdmissionReviewTest, DenyCarriesCodeAndMessage) {
  auto r = ParseAdmissionReview(kReview);
  ASSERT_TRUE(r.ok());
  auto out = k8s::JsonObject::Parse(DenyResponse(*r, 403, "ClientProfile \"x\" not found"));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->GetBool({"response", "allowed"}), false);
  EXPECT_EQ(out->GetInt({"response", "status", "code"}), 403);
  EXPECT_EQ(out->GetString({"response", "status", "message"}), "ClientProfile \"x\" not found");
}

}  // namespace
}  // namespace rdmastack::webhook
