// Expected values are the published AWS Signature Version 4 vectors: the aws-sig-v4-test-suite
// (credentials AKIDEXAMPLE, 2015-08-30T12:36:00Z, region us-east-1, service "service"), the IAM
// ListUsers walk-through of the SigV4 signing documentation, and the S3 "GET Object" example of the
// S3 API reference (AKIAIOSFODNN7EXAMPLE, 2013-05-24).
#include "lib/s3/sigv4.h"

#include <gtest/gtest.h>

#include "lib/s3/crypto.h"

namespace rdmastack::s3 {
namespace {

const Credentials kSuiteCredentials{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"};
constexpr std::string_view kSuiteDate = "20150830T123600Z";

struct SuiteCase {
  std::string name;
  std::string method;
  KeyValues query;
  KeyValues extra_headers;
  std::string body;
  std::string signed_headers;
  std::string signature;
};

void PrintTo(const SuiteCase& c, std::ostream* os) {
  *os << c.name;
}

class SuiteTest : public ::testing::TestWithParam<SuiteCase> {};

TEST_P(SuiteTest, ReproducesPublishedSignature) {
  const SuiteCase& c = GetParam();
  RequestToSign req;
  req.method = c.method;
  req.path = "/";
  req.query = c.query;
  req.headers = c.extra_headers;
  req.headers.emplace_back("Host", "example.amazonaws.com");
  req.headers.emplace_back("X-Amz-Date", std::string(kSuiteDate));
  req.payload_sha256_hex = Sha256Hex(c.body);
  Signature sig = SignRequest(req, kSuiteCredentials, "us-east-1", "service", kSuiteDate);
  EXPECT_EQ(sig.signature, c.signature);
  EXPECT_EQ(sig.signed_headers, c.signed_headers);
  EXPECT_EQ(sig.authorization,
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
            "SignedHeaders=" +
                c.signed_headers + ", Signature=" + c.signature);
}

INSTANTIATE_TEST_SUITE_P(
    AwsSigV4TestSuite, SuiteTest,
    ::testing::Values(
        SuiteCase{"get_vanilla",
                  "GET",
                  {},
                  {},
                  "",
                  "host;x-amz-date",
                  "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"},
        // "GET /?" — an empty query string signs exactly like no query.
        SuiteCase{"get_vanilla_query",
                  "GET",
                  {},
                  {},
                  "",
                  "host;x-amz-date",
                  "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"},
        SuiteCase{"get_vanilla_empty_query_key",
                  "GET",
                  {{"Param1", "value1"}},
                  {},
                  "",
                  "host;x-amz-date",
                  "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb"},
        SuiteCase{"get_vanilla_query_order_key_case",
                  "GET",
                  {{"Param2", "value2"}, {"Param1", "value1"}},
                  {},
                  "",
                  "host;x-amz-date",
                  "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"},
        SuiteCase{"get_header_key_duplicate",
                  "GET",
                  {},
                  {{"My-Header1", "value2"}, {"My-Header1", "value2"}, {"My-Header1", "value1"}},
                  "",
                  "host;my-header1;x-amz-date",
                  "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea"},
        SuiteCase{"get_header_value_trim",
                  "GET",
                  {},
                  {{"My-Header1", " value1"}, {"My-Header2", " \"a   b   c\""}},
                  "",
                  "host;my-header1;my-header2;x-amz-date",
                  "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"},
        SuiteCase{"post_vanilla",
                  "POST",
                  {},
                  {},
                  "",
                  "host;x-amz-date",
                  "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"},
        SuiteCase{"post_x_www_form_urlencoded",
                  "POST",
                  {},
                  {{"Content-Type", "application/x-www-form-urlencoded"}},
                  "Param1=value1",
                  "content-type;host;x-amz-date",
                  "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"}),
    [](const ::testing::TestParamInfo<SuiteCase>& info) { return info.param.name; });

TEST(SigV4, IamListUsersDocumentationExample) {
  RequestToSign req;
  req.method = "GET";
  req.path = "/";
  req.query = {{"Action", "ListUsers"}, {"Version", "2010-05-08"}};
  req.headers = {{"Content-Type", "application/x-www-form-urlencoded; charset=utf-8"},
                 {"Host", "iam.amazonaws.com"},
                 {"X-Amz-Date", "20150830T123600Z"}};
  req.payload_sha256_hex = std::string(kEmptyPayloadSha256);
  Signature sig = SignRequest(req, kSuiteCredentials, "us-east-1", "iam", "20150830T123600Z");
  EXPECT_EQ(Sha256Hex(sig.canonical_request),
            "f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59");
  EXPECT_EQ(sig.string_to_sign,
            "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/iam/aws4_request\n"
            "f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59");
  EXPECT_EQ(sig.signature, "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7");
}

TEST(SigV4, S3GetObjectDocumentationExample) {
  const Credentials creds{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"};
  RequestToSign req;
  req.method = "GET";
  req.path = "/test.txt";
  req.headers = {{"Host", "examplebucket.s3.amazonaws.com"},
                 {"Range", "bytes=0-9"},
                 {"x-amz-content-sha256", std::string(kEmptyPayloadSha256)},
                 {"x-amz-date", "20130524T000000Z"}};
  req.payload_sha256_hex = std::string(kEmptyPayloadSha256);
  Signature sig = SignRequest(req, creds, "us-east-1", "s3", "20130524T000000Z");
  EXPECT_EQ(Sha256Hex(sig.canonical_request),
            "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  EXPECT_EQ(sig.signature, "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  EXPECT_EQ(sig.authorization,
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(SigV4, FormBodyHashMatchesSuite) {
  EXPECT_EQ(Sha256Hex("Param1=value1"),
            "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e");
  EXPECT_EQ(Sha256Hex(""), kEmptyPayloadSha256);
}

TEST(SigV4, UriEncodeKeepsUnreservedAndOptionallySlash) {
  EXPECT_EQ(UriEncode("aZ09-._~", false), "aZ09-._~");
  EXPECT_EQ(UriEncode("a b/c", false), "a%20b%2Fc");
  EXPECT_EQ(UriEncode("/bucket/a b+c", true), "/bucket/a%20b%2Bc");
  EXPECT_EQ(UriEncode("\xe1\x88\xb4", false), "%E1%88%B4");
}

TEST(SigV4, CanonicalQuerySortsByEncodedKeyThenValue) {
  EXPECT_EQ(CanonicalQueryString({{"b", "2"}, {"a", "z"}, {"a", "y"}, {"c d", ""}}),
            "a=y&a=z&b=2&c%20d=");
}

TEST(SigV4, FormatAmzDateIsUtc) {
  auto t = std::chrono::system_clock::time_point(std::chrono::seconds(1440938160));
  EXPECT_EQ(FormatAmzDate(t), "20150830T123600Z");
}

}  // namespace
}  // namespace rdmastack::s3
