#include "lib/s3/readiness_probe.h"

#include <gtest/gtest.h>

#include <deque>

namespace rdmastack::s3 {
namespace {

// Replays scripted answers and records what was asked.
class ScriptedTransport final : public HttpTransport {
 public:
  std::deque<StatusOr<HttpResponse>> answers;
  std::vector<HttpRequest> seen;

  StatusOr<HttpResponse> RoundTrip(const Endpoint&, const HttpRequest& request,
                                   std::chrono::milliseconds) override {
    seen.push_back(request);
    if (answers.empty()) return InternalError("unexpected request");
    StatusOr<HttpResponse> next = std::move(answers.front());
    answers.pop_front();
    return next;
  }
};

HttpResponse Answer(int status, std::string body = "") {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

class ProbeTest : public ::testing::Test {
 protected:
  ProbeResult Run() {
    S3Client client(transport_, Endpoint{"http", "127.0.0.1", 7070}, {"AK", "SK"}, "us-east-1",
                    clock_, std::chrono::seconds(2));
    return RunReadinessProbe(client, "/_/health");
  }
  ScriptedTransport transport_;
  FakeClock clock_;
};

TEST_F(ProbeTest, HealthyWhenHealthAndSignedListBucketsSucceed) {
  transport_.answers.push_back(Answer(200));
  transport_.answers.push_back(
      Answer(200, "<ListAllMyBucketsResult><Buckets/></ListAllMyBucketsResult>"));
  ProbeResult r = Run();
  EXPECT_EQ(r.outcome, ProbeOutcome::kHealthy) << r.message;
  ASSERT_EQ(transport_.seen.size(), 2u);
  EXPECT_EQ(transport_.seen[0].target, "/_/health");
  EXPECT_EQ(transport_.seen[1].target, "/");
  bool signed_request = false;
  for (const auto& [k, v] : transport_.seen[1].headers) {
    if (k == "authorization") {
      signed_request = v.rfind("AWS4-HMAC-SHA256 Credential=AK/", 0) == 0 &&
                       v.find("/us-east-1/s3/aws4_request") != std::string::npos;
    }
  }
  EXPECT_TRUE(signed_request);
}

TEST_F(ProbeTest, ForbiddenIsCredentialsRejectedWithS3Code) {
  transport_.answers.push_back(Answer(200));
  transport_.answers.push_back(
      Answer(403, "<Error><Code>SignatureDoesNotMatch</Code><Message>x</Message></Error>"));
  ProbeResult r = Run();
  EXPECT_EQ(r.outcome, ProbeOutcome::kCredentialsRejected);
  EXPECT_NE(r.message.find("credentials rejected (403 SignatureDoesNotMatch)"), std::string::npos)
      << r.message;
  EXPECT_EQ(r.message.find('\n'), std::string::npos);
}

TEST_F(ProbeTest, TransportFailuresAreClassified) {
  struct Case {
    Status failure;
    ProbeOutcome want;
  };
  for (const Case& c : {Case{UnavailableError("connection refused by http://127.0.0.1:7070"),
                             ProbeOutcome::kConnectionRefused},
                        Case{DeadlineExceededError("timeout during read"), ProbeOutcome::kTimeout},
                        Case{DataLossError("bad HTTP response"), ProbeOutcome::kBadResponse}}) {
    transport_.answers.clear();
    transport_.answers.push_back(c.failure);
    ProbeResult r = Run();
    EXPECT_EQ(r.outcome, c.want) << r.message;
    EXPECT_NE(r.message.find(c.failure.message()), std::string::npos) << r.message;
  }
}

TEST_F(ProbeTest, HealthPathNotServedIsBadResponseNamingThePath) {
  transport_.answers.push_back(Answer(404));
  ProbeResult r = Run();
  EXPECT_EQ(r.outcome, ProbeOutcome::kBadResponse);
  EXPECT_NE(r.message.find("VGW_HEALTH=/_/health"), std::string::npos) << r.message;
}

TEST_F(ProbeTest, OkWithoutBucketListIsBadResponse) {
  transport_.answers.push_back(Answer(200));
  transport_.answers.push_back(Answer(200, "<html>proxy login</html>"));
  EXPECT_EQ(Run().outcome, ProbeOutcome::kBadResponse);
}

TEST_F(ProbeTest, ServerErrorIsBadResponse) {
  transport_.answers.push_back(Answer(200));
  transport_.answers.push_back(Answer(500, "<Error><Code>InternalError</Code></Error>"));
  ProbeResult r = Run();
  EXPECT_EQ(r.outcome, ProbeOutcome::kBadResponse);
  EXPECT_NE(r.message.find("500 InternalError"), std::string::npos) << r.message;
}

}  // namespace
}  // namespace rdmastack::s3
