#include "controllers/clientprofile/s3_user.h"

#include <gtest/gtest.h>

#include "operator/k8s/config.h"

namespace rdmastack::clientprofile {
namespace {

using std::chrono::seconds;

crd::ClientProfile S3Profile() {
  crd::ClientProfile p;
  p.metadata.name = "kvcache";
  p.metadata.namespace_ = "ml";
  p.metadata.uid = "uid-1";
  p.spec.s3_user = crd::S3UserSpec{{"kvcache", "ckpt"}, "r1", 60};
  return p;
}

TEST(S3UserNames, PrefixAndSidNameTheProfileAndDifferBetweenProfiles) {
  const std::string a = S3UserKeyPrefix("ml", "kvcache");
  EXPECT_EQ(a.size(), 10u);
  EXPECT_EQ(a.substr(0, 2), "RS");
  EXPECT_EQ(a, S3UserKeyPrefix("ml", "kvcache"));
  EXPECT_NE(a, S3UserKeyPrefix("ml2", "kvcache"));
  EXPECT_NE(a, S3UserKeyPrefix("ml", "kvcache2"));
  EXPECT_EQ(S3UserStatementId("ml", "kvcache"), "rdmastack" + a.substr(2));
}

TEST(S3UserKeys, TwentyCharacterIdsWithThePrefixAndFortyCharacterSecrets) {
  std::string random;
  for (int i = 0; i < 64; ++i) random.push_back(static_cast<char>(i * 7));
  const s3::Credentials k = S3UserKeysFrom("RSABCD1234", random);
  EXPECT_EQ(k.access_key_id.size(), 20u);
  EXPECT_EQ(k.access_key_id.rfind("RSABCD1234", 0), 0u);
  EXPECT_EQ(k.secret_access_key.size(), 40u);
  auto fresh1 = NewS3UserKeys("RSABCD1234");
  auto fresh2 = NewS3UserKeys("RSABCD1234");
  ASSERT_TRUE(fresh1.ok() && fresh2.ok());
  EXPECT_NE(fresh1->access_key_id, fresh2->access_key_id);
  EXPECT_NE(fresh1->secret_access_key, fresh2->secret_access_key);
}

TEST(S3UserSecret, RendersAndReadsBackTheKeysAndTheRotation) {
  S3UserSecret state{{"RSAAAAAAAA0123456789", "secret"},
                     "r1",
                     "RSAAAAAAAAOLD0000000",
                     std::chrono::system_clock::time_point(seconds(1'800'000'000))};
  const k8s::JsonObject s = RenderS3UserSecret(S3Profile(), state);
  EXPECT_EQ(s.GetString({"metadata", "name"}), "kvcache-s3-user");
  EXPECT_EQ(s.GetString({"metadata", "namespace"}), "ml");
  EXPECT_EQ(s.GetString({"metadata", "ownerReferences", "0", "uid"}), "uid-1");
  EXPECT_EQ(s.Label("clientprofile.rdmastack.io/name"), "kvcache");
  auto back = ReadS3UserSecret(s);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->keys.access_key_id, state.keys.access_key_id);
  EXPECT_EQ(back->keys.secret_access_key, "secret");
  EXPECT_EQ(back->rotation, "r1");
  EXPECT_EQ(back->previous_access_key, state.previous_access_key);
  EXPECT_EQ(back->rotated_at, state.rotated_at);

  k8s::JsonObject emptied = s;
  (void)emptied.SetString({"data", kS3UserSecretKeyKey}, "");
  EXPECT_FALSE(ReadS3UserSecret(emptied).ok());
}

TEST(S3UserSecret, ThePreviousKeyCountsOnlyWithinItsGrace) {
  const auto t0 = std::chrono::system_clock::time_point(seconds(1'800'000'000));
  S3UserSecret state{{"RSNEW", "s"}, "r2", "RSOLD", t0};
  const crd::S3UserSpec spec = *S3Profile().spec.s3_user;  // grace 60 s
  EXPECT_EQ(PreviousKeyInGrace(state, spec, t0 + seconds(59)), "RSOLD");
  EXPECT_EQ(PreviousKeyInGrace(state, spec, t0 + seconds(60)), "");
  state.rotated_at.reset();
  EXPECT_EQ(PreviousKeyInGrace(state, spec, t0), "");
}

TEST(S3UserClientCredentials, TheS3UsersSecretUnlessCredentialsSecretIsNamed) {
  crd::ClientProfile p = S3Profile();
  auto creds = ClientCredentials(p);
  ASSERT_TRUE(creds.has_value());
  EXPECT_EQ(creds->name, "kvcache-s3-user");
  EXPECT_EQ(creds->access_key_id_key, "accessKeyId");
  p.spec.s3_user.reset();
  EXPECT_FALSE(ClientCredentials(p).has_value());
  p.spec.credentials_secret = crd::CredentialsSecretRef{"mine", "id", "key"};
  EXPECT_EQ(ClientCredentials(p)->name, "mine");
}

TEST(WithProfileStatement, AddsReplacesAndRemovesOnlyItsOwnStatement) {
  const std::string theirs =
      R"({"Version":"2012-10-17","Statement":[{"Sid":"owner","Effect":"Allow",)"
      R"("Principal":{"AWS":["OTHER"]},"Action":["s3:GetObject"],"Resource":["arn:aws:s3:::b/*"]}]})";
  auto added = WithProfileStatement(theirs, "rdmastackX", "b", {"RSNEW", "RSOLD"});
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  auto doc = k8s::JsonObject::Parse(*added);
  ASSERT_TRUE(doc.ok());
  const auto statements = doc->GetArray({"Statement"});
  ASSERT_EQ(statements.size(), 2u);
  EXPECT_EQ(statements[0].GetString({"Sid"}), "owner");
  EXPECT_EQ(statements[1].GetString({"Sid"}), "rdmastackX");
  EXPECT_EQ(statements[1].GetString({"Principal", "AWS", "1"}), "RSOLD");
  EXPECT_EQ(statements[1].GetString({"Resource", "0"}), "arn:aws:s3:::b");
  EXPECT_EQ(statements[1].GetString({"Resource", "1"}), "arn:aws:s3:::b/*");

  auto replaced = WithProfileStatement(*added, "rdmastackX", "b", {"RSNEW"});
  ASSERT_TRUE(replaced.ok());
  auto again = k8s::JsonObject::Parse(*replaced);
  ASSERT_EQ(again->GetArray({"Statement"}).size(), 2u);
  EXPECT_FALSE(again->Has({"Statement", "1", "Principal", "AWS", "1"}));

  auto removed = WithProfileStatement(*replaced, "rdmastackX", "b", {});
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(k8s::JsonObject::Parse(*removed)->GetArray({"Statement"}).size(), 1u);
  auto only_ours = WithProfileStatement("", "rdmastackX", "b", {"RSNEW"});
  ASSERT_TRUE(only_ours.ok());
  EXPECT_EQ(*WithProfileStatement(*only_ours, "rdmastackX", "b", {}), "");
  EXPECT_FALSE(WithProfileStatement("not json", "rdmastackX", "b", {"RSNEW"}).ok());
}

// A bucket that outlived its gateway's IAM keeps another profile's statement naming a user that is
// gone; versitygw refuses any policy naming it, so it is dropped (and only such rdmastack ones).
TEST(WithoutStaleProfileStatements, DropsOnlyRdmastackStatementsNamingUnknownUsers) {
  const std::string policy =
      R"({"Version":"2012-10-17","Statement":[)"
      R"({"Sid":"rdmastackAAAAAAAA","Effect":"Allow","Principal":{"AWS":["GONE"]},"Action":["s3:*"],"Resource":["arn:aws:s3:::b"]},)"
      R"({"Sid":"rdmastackBBBBBBBB","Effect":"Allow","Principal":{"AWS":["LIVE"]},"Action":["s3:*"],"Resource":["arn:aws:s3:::b"]},)"
      R"({"Sid":"owner","Effect":"Allow","Principal":{"AWS":["GONE"]},"Action":["s3:GetObject"],"Resource":["arn:aws:s3:::b/*"]}]})";
  auto cleaned = WithoutStaleProfileStatements(policy, {"LIVE"});
  ASSERT_TRUE(cleaned.ok());
  auto doc = k8s::JsonObject::Parse(*cleaned);
  ASSERT_TRUE(doc.ok());
  const auto statements = doc->GetArray({"Statement"});
  ASSERT_EQ(statements.size(), 2u) << *cleaned;
  EXPECT_EQ(statements[0].GetString({"Sid"}), "rdmastackBBBBBBBB");
  EXPECT_EQ(statements[1].GetString({"Sid"}), "owner");
  // Nothing stale: the document comes back as it was.
  EXPECT_EQ(*WithoutStaleProfileStatements(*cleaned, {"LIVE", "GONE"}), *cleaned);
  EXPECT_EQ(*WithoutStaleProfileStatements("", {}), "");
}

}  // namespace
}  // namespace rdmastack::clientprofile
