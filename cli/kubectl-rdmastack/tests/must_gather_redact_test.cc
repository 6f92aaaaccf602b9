// What keeps secret values out of a must-gather bundle: helm values and pod specs redacted by
// key, free text by `key=value`, and Secrets' own values found wherever they are quoted.
#include <gtest/gtest.h>

#include "cli/kubectl-rdmastack/must_gather/helm_release.h"
#include "cli/kubectl-rdmastack/must_gather/redact.h"
#include "cli/kubectl-rdmastack/must_gather/tar_gz.h"
#include "operator/k8s/config.h"
#include "operator/k8s/testing/json_text.h"

namespace rdmastack::plugin {
namespace {

using k8s::testing::JsonText;

constexpr char kValue[] = "wJalrXUtnFEMI-K7MDENG-bPxRfiCYz";

TEST(RedactTest, CredentialKeysInAnyCaseAndSpelling) {
  for (const char* key : {"password", "PASSWORD", "db_password", "secretKey", "secret-access-key",
                          "SECRET_ACCESS_KEY", "token", "authToken", "Authorization", "apiKey",
                          "api_key", "accessKey", "privateKey", "credentials", "dcKey",
                          "--s3-secret-key", "ROOT_SECRET_ACCESS_KEY", "passphrase"}) {
    EXPECT_TRUE(LooksLikeCredentialKey(key)) << key;
  }
  for (const char* key :
       {"name", "image", "logLevel", "replicas", "secretName", "tokenFile", "credentialsSecretRef",
        "tokenPath", "tokenSecretNamespace", "key", "keys", "monkey", "nodeSelector", "registry"}) {
    EXPECT_FALSE(LooksLikeCredentialKey(key)) << key;
  }
}

TEST(RedactTest, HelmValuesUnderCredentialKeysAtAnyDepth) {
  k8s::JsonObject values = JsonText(R"({
    "operator": {"logLevel": "debug", "replicas": 2, "extraArgs": ["--s3-secret-key=abc123", "--v=2"]},
    "s3": {"endpoint": "http://s3", "secretKey": "abc123", "accessKeyId": "AKIA1"},
    "auth": {"user": "admin", "password": 12345, "enabled": true, "existingSecretName": "creds"},
    "image": {"pullSecrets": [{"name": "regcred"}], "tag": "1.0"},
    "token": null,
    "note": "password=hunter22 in a string"
  })");
  EXPECT_EQ(RedactValues(values), 6);
  EXPECT_EQ(values.Serialize(), JsonText(R"({
    "operator": {"logLevel": "debug", "replicas": 2, "extraArgs": ["--s3-secret-key=<redacted>", "--v=2"]},
    "s3": {"endpoint": "http://s3", "secretKey": "<redacted>", "accessKeyId": "<redacted>"},
    "auth": {"user": "<redacted>", "password": "<redacted>", "enabled": true, "existingSecretName": "creds"},
    "image": {"pullSecrets": [{"name": "regcred"}], "tag": "1.0"},
    "token": null,
    "note": "password=<redacted> in a string"
  })")
                                    .Serialize());
}

TEST(RedactTest, TextKeepsWordsAndReplacesValues) {
  int n = 0;
  EXPECT_EQ(RedactText("export AWS_SECRET_ACCESS_KEY=abc; run --token=t0k --level=info", &n),
            "export AWS_SECRET_ACCESS_KEY=<redacted>; run --token=<redacted> --level=info");
  EXPECT_EQ(RedactText(R"({"msg":"login","password":"p\"w d","user":"bob"})", &n),
            R"({"msg":"login","password":"<redacted>","user":"bob"})");
  EXPECT_EQ(RedactText("Authorization: Bearer eyJhbGciOi.x.y\nnext", &n),
            "Authorization: Bearer <redacted>\nnext");
  EXPECT_EQ(RedactText("secret: 'two words'", &n), "secret: '<redacted>'");
  EXPECT_EQ(n, 5);
  // Nothing after the separator, a reference key, no separator at all: unchanged.
  for (const char* same : {"password:\nnext", "tokenFile=/var/run/token", "secret \"x\" not found",
                           "token renewed", "level=info"}) {
    EXPECT_EQ(RedactText(same), same);
  }
}

TEST(RedactTest, PodSpecEnvLiteralsAndArgumentsButNotReferences) {
  k8s::JsonObject pod = JsonText(R"({
    "metadata": {"name": "p", "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}",
                 "keep": "me"}, "managedFields": [{"manager": "kubectl"}]},
    "spec": {
      "initContainers": [{"name": "i", "args": ["--password", "pw1", "--other", "x"]}],
      "containers": [{"name": "c",
        "command": ["sh", "-c", "DB_PASSWORD=pw2 exec app"],
        "args": ["--secret-key=pw3", "--v=2"],
        "env": [
          {"name": "S3_SECRET_KEY", "value": "pw4"},
          {"name": "LOG_LEVEL", "value": "info"},
          {"name": "OPTS", "value": "token=pw5 level=2"},
          {"name": "ROOT_SECRET_ACCESS_KEY", "valueFrom": {"secretKeyRef": {"name": "creds", "key": "secretAccessKey"}}}
        ]}]
    }})");
  EXPECT_EQ(RedactObject(pod), 6);
  const std::string text = pod.Serialize();
  for (const char* gone : {"pw1", "pw2", "pw3", "pw4", "pw5", "last-applied", "managedFields"})
    EXPECT_EQ(text.find(gone), std::string::npos) << gone << " in " << text;
  for (const char* kept : {"\"keep\"", "--other", "\"info\"", "secretKeyRef", "secretAccessKey",
                           "\"creds\"", "level=2", "--v=2"})
    EXPECT_NE(text.find(kept), std::string::npos) << kept << " not in " << text;

  // A DaemonSet's pod template the same way.
  k8s::JsonObject ds = JsonText(R"({"spec": {"template": {"spec": {"containers": [
      {"name": "c", "env": [{"name": "API_TOKEN", "value": "pw6"}]}]}}}})");
  EXPECT_EQ(RedactObject(ds), 1);
  EXPECT_EQ(ds.Serialize().find("pw6"), std::string::npos);
}

TEST(RedactTest, ScrubberFindsRawBase64AndJsonEscapedValues) {
  SecretScrubber scrubber;
  scrubber.Add(kValue);
  scrubber.Add("short");  // below kMinScrubLength: ordinary words stay
  const std::string pem =
      "-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END KEY-----";
  scrubber.Add(pem);
  scrubber.Add("quote\"d\\value");
  const std::string text = std::string("a ") + kValue + " b " + k8s::EncodeBase64(kValue) +
                           " c short d quote\\\"d\\\\value e MIIEvQIBADANBgkqhkiG9w0BAQEFAASC f";
  int n = 0;
  EXPECT_EQ(scrubber.Scrub(text, &n),
            "a <redacted> b <redacted> c short d <redacted> e <redacted> f");
  EXPECT_EQ(n, 4);
}

TEST(RedactTest, SecretInventoryHasKeysNeverValuesAndFeedsTheScrubber) {
  const std::string b64 = k8s::EncodeBase64(kValue);
  const std::string applied =
      R"({"apiVersion":"v1","kind":"Secret","stringData":{"extra":"applied-only-value-1"}})";
  k8s::JsonObject secret = JsonText(R"({"metadata": {"name": "creds", "namespace": "ml"},
      "type": "Opaque", "data": {"secretAccessKey": ")" +
                                    b64 + R"(", "accessKeyId": "QUtJQTE="}})");
  // kubectl apply leaves the object as applied in an annotation, values included.
  (void)secret.SetString(
      {"metadata", "annotations", "kubectl.kubernetes.io/last-applied-configuration"}, applied);
  SecretScrubber scrubber;
  const k8s::JsonObject inventory = SecretInventory(secret, scrubber);
  EXPECT_EQ(
      inventory.Serialize(),
      R"({"name":"creds","namespace":"ml","type":"Opaque","keys":["accessKeyId","secretAccessKey"]})");
  EXPECT_EQ(scrubber.Scrub(std::string(kValue) + " " + b64 + " applied-only-value-1"),
            "<redacted> <redacted> <redacted>");
}

TEST(RedactTest, HelmReleaseRecordGivesRedactedConfigAndNoManifest) {
  const std::string release = std::string(R"({"name":"rdmastack","namespace":"rdmastack-system",
      "version":3,"info":{"status":"deployed","last_deployed":"2026-12-05T10:00:00Z"},
      "chart":{"metadata":{"name":"rdmastack","version":"0.1.0","appVersion":"0.1.0"}},
      "config":{"operator":{"logLevel":"debug"},"s3":{"secretKey":")") +
                              kValue + R"("}},
      "manifest":"apiVersion: v1\nkind: Secret\nstringData:\n  key: )" +
                              kValue + R"("})";
  StatusOr<std::string> gz = Gzip(release);
  ASSERT_TRUE(gz.ok());
  k8s::JsonObject secret;
  (void)secret.SetString({"metadata", "name"}, "sh.helm.release.v1.rdmastack.v3");
  (void)secret.SetString({"type"}, kHelmReleaseType);
  (void)secret.SetString({"data", "release"}, k8s::EncodeBase64(k8s::EncodeBase64(*gz)));
  StatusOr<HelmRelease> decoded = DecodeHelmRelease(secret);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->values.Serialize(),
            R"({"operator":{"logLevel":"debug"},"s3":{"secretKey":"<redacted>"}})");
  EXPECT_EQ(decoded->redacted, 1);
  const std::string summary = decoded->summary.Serialize();
  EXPECT_NE(summary.find(R"("revision":3)"), std::string::npos) << summary;
  EXPECT_NE(summary.find(R"("status":"deployed")"), std::string::npos) << summary;
  EXPECT_EQ(summary.find(kValue), std::string::npos) << summary;

  (void)secret.SetString({"data", "release"}, "not base64!");
  EXPECT_FALSE(DecodeHelmRelease(secret).ok());
}

}  // namespace
}  // namespace rdmastack::plugin
