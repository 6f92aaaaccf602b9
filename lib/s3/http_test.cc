#include "lib/s3/http.h"

#include <gtest/gtest.h>

namespace rdmastack::s3 {
namespace {

TEST(ParseEndpoint, HostAndPort) {
  StatusOr<Endpoint> ep = ParseEndpoint("http://127.0.0.1:7070/");
  ASSERT_TRUE(ep.ok()) << ep.status().ToString();
  EXPECT_EQ(ep->host, "127.0.0.1");
  EXPECT_EQ(ep->port, 7070);
  EXPECT_EQ(ep->HostHeader(), "127.0.0.1:7070");
}

TEST(ParseEndpoint, DefaultPortIsOmittedFromHostHeader) {
  StatusOr<Endpoint> ep = ParseEndpoint("http://gw.example");
  ASSERT_TRUE(ep.ok());
  EXPECT_EQ(ep->port, 80);
  EXPECT_EQ(ep->HostHeader(), "gw.example");
}

TEST(ParseEndpoint, RejectsWhatItCannotProbe) {
  for (const char* bad : {"127.0.0.1:7070", "ftp://h:1", "http://h:0", "http://h:70000",
                          "http://h:12x", "http://h:1/bucket", "http://", "http://:80"}) {
    StatusOr<Endpoint> ep = ParseEndpoint(bad);
    EXPECT_FALSE(ep.ok()) << bad;
    if (!ep.ok()) {
      EXPECT_EQ(ep.status().code(), StatusCode::kInvalidArgument) << bad;
      EXPECT_NE(ep.status().message().find("https://HOST:PORT"), std::string::npos) << bad;
    }
  }
}

TEST(ParseEndpoint, HttpsDefaultsToPort443) {
  StatusOr<Endpoint> ep = ParseEndpoint("https://gw.example");
  ASSERT_TRUE(ep.ok()) << ep.status().ToString();
  EXPECT_EQ(ep->scheme, "https");
  EXPECT_EQ(ep->port, 443);
  EXPECT_EQ(ep->HostHeader(), "gw.example");
  EXPECT_EQ(ParseEndpoint("https://10.0.0.1:7071")->HostHeader(), "10.0.0.1:7071");
}

TEST(HttpResponse, HeaderLookupIgnoresCase) {
  HttpResponse r;
  r.headers = {{"ETag", "\"abc\""}, {"Content-Length", "3"}};
  EXPECT_EQ(r.Header("etag"), "\"abc\"");
  EXPECT_EQ(r.Header("x-missing"), "");
}

}  // namespace
}  // namespace rdmastack::s3
