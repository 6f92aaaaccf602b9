#include "agents/client/endpoints.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace rdmastack::client {
namespace {

TEST(Endpoints, ParsesTheOperatorsFile) {
  auto p = ParseEndpointsJson(
      R"({"pool":"ml/kvcache","region":"eu-west-1","scheme":"http","future":{"x":1},
          "endpoints":[{"node":"stg-node-0","address":"198.18.0.10","s3Port":7071,
                        "libraryVersion":"1.2.0.68"},
                       {"node":"stg-node-2","address":"198.18.0.12","s3Port":7072}]})");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->pool, "ml/kvcache");
  EXPECT_EQ(p->region, "eu-west-1");
  ASSERT_EQ(p->endpoints.size(), 2u);
  EXPECT_EQ(p->endpoints[0].node, "stg-node-0");
  EXPECT_EQ(p->endpoints[0].library_version, "1.2.0.68");
  EXPECT_EQ(p->endpoints[1].s3_port, 7072);
  EXPECT_EQ(p->Urls(),
            (std::vector<std::string>{"http://198.18.0.10:7071", "http://198.18.0.12:7072"}));
}

TEST(Endpoints, DefaultsAndEmptyList) {
  auto p = ParseEndpointsJson(R"({"pool":"ml/kvcache","endpoints":[]})");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->region, "us-east-1");
  EXPECT_EQ(p->scheme, "http");
  EXPECT_TRUE(p->endpoints.empty());
  EXPECT_TRUE(p->Urls().empty());
}

TEST(Endpoints, HttpsAndIpv6Urls) {
  auto p =
      ParseEndpointsJson(R"({"scheme":"https","endpoints":[{"address":"fd00::10","s3Port":443}]})");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->Urls(), std::vector<std::string>{"https://[fd00::10]:443"});
}

TEST(Endpoints, AnHttpsPoolCarriesItsCa) {
  auto p = ParseEndpointsJson(
      R"({"scheme":"https","caBundle":"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n","endpoints":[]})");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->ca_bundle, "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
  auto http = ParseEndpointsJson(R"({"endpoints":[]})");
  ASSERT_TRUE(http.ok());
  EXPECT_EQ(http->ca_bundle, "");
}

TEST(Endpoints, ErrorsNameTheField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "not JSON"},
      {"{\"endpoints\":[", "not JSON"},
      {"[]", "top level must be an object"},
      {R"({"pool":"a/b"})", "endpoints must be an array"},
      {R"({"endpoints":{}})", "endpoints must be an array"},
      {R"({"endpoints":[7]})", "endpoints[0] must be an object"},
      {R"({"endpoints":[{"s3Port":7071}]})", "endpoints[0].address must be"},
      {R"({"endpoints":[{"address":"10.0.0.1/24","s3Port":7071}]})", "endpoints[0].address"},
      {R"({"endpoints":[{"address":"a","s3Port":1},{"address":"b"}]})",
       "endpoints[1].s3Port must be an integer 1..65535"},
      {R"({"endpoints":[{"address":"a","s3Port":70000}]})", "s3Port must be an integer"},
      {R"({"endpoints":[{"address":"a","s3Port":"7071"}]})", "s3Port must be an integer"},
      {R"({"endpoints":[{"address":3,"s3Port":7071}]})", "endpoints[0].address must be a string"},
      {R"({"scheme":"ftp","endpoints":[]})", "scheme must be http or https"},
      {R"({"caBundle":"not a certificate","endpoints":[]})", "caBundle must be PEM"},
      {R"({"region":"","endpoints":[]})", "region must be"},
      {R"({"pool":7,"endpoints":[]})", "pool must be a string"},
      {R"({"endpoints":[],"networks":{}})", "networks must be an array"},
      {R"({"endpoints":[],"networks":[3]})", "networks[0] must be an object"},
      {R"({"endpoints":[],"networks":[{"rail":"a"}]})", "networks[0].cidr must be an IPv4"},
      {R"({"endpoints":[],"networks":[{"cidr":"10.0.0.1"}]})", "networks[0].cidr must be"},
      {R"({"endpoints":[],"networks":[{"cidr":"10.0.0.0/33"}]})", "networks[0].cidr must be"},
      {R"({"endpoints":[],"networks":[{"cidr":"fd00::/64"}]})", "networks[0].cidr must be"},
      {R"({"endpoints":[],"networks":[{"cidr":7}]})", "networks[0].cidr must be a string"},
      {R"({"endpoints":[],"networks":[{"rail":"A","cidr":"10.0.0.0/8"}]})",
       "networks[0].rail must be a rail name"},
      {R"({"endpoints":[],"networks":[{"rail":"a-very-long-rail-name","cidr":"10.0.0.0/8"}]})",
       "networks[0].rail must be"},
  };
  for (const auto& [text, says] : cases) {
    auto p = ParseEndpointsJson(text);
    ASSERT_FALSE(p.ok()) << text;
    EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument) << text;
    EXPECT_NE(p.status().message().find(says), std::string::npos)
        << text << " -> " << p.status().message();
  }
}

TEST(Endpoints, ThePoolsNetworksAreRead) {
  auto p = ParseEndpointsJson(
      R"({"endpoints":[],"networks":[{"rail":"a","cidr":"10.10.0.0/16"},{"cidr":"10.11.0.0/24"}]})");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->networks,
            (std::vector<rails::RailNetwork>{{"a", "10.10.0.0/16"}, {"", "10.11.0.0/24"}}));
  std::string many = R"({"endpoints":[],"networks":[)";
  for (int i = 0; i < 33; ++i) many += std::string(i ? "," : "") + R"({"cidr":"10.0.0.0/8"})";
  EXPECT_FALSE(ParseEndpointsJson(many + "]}").ok()) << "at most 32 networks";
  EXPECT_TRUE(ParseEndpointsJson(R"({"endpoints":[]})")->networks.empty());
}

TEST(Endpoints, AClientOnRailsUsesTheGatewaysOnThem) {
  auto p = ParseEndpointsJson(R"({"endpoints":[
      {"node":"s0","address":"10.0.0.1","s3Port":7071,"rail":"a"},
      {"node":"s0","address":"10.0.0.1","s3Port":7171,"rail":"b"},
      {"node":"s1","address":"10.0.0.2","s3Port":7071}]})");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->endpoints[1].rail, "b");
  auto ports = [](const std::vector<PoolEndpoint>& eps) {
    std::vector<int> out;
    for (const auto& e : eps) out.push_back(e.s3_port);
    return out;
  };
  EXPECT_EQ(ports(EndpointsOnRails(p->endpoints, {"b"})), (std::vector<int>{7171, 7071}));
  EXPECT_EQ(ports(EndpointsOnRails(p->endpoints, {})), (std::vector<int>{7071, 7171, 7071}));
  // No endpoint on the client's rails but one of no rail: that one.
  EXPECT_EQ(ports(EndpointsOnRails(p->endpoints, {"c"})), (std::vector<int>{7071}));
  // Only railed endpoints, none on the client's: all of them rather than none.
  const std::vector<PoolEndpoint> railed(p->endpoints.begin(), p->endpoints.begin() + 2);
  EXPECT_EQ(ports(EndpointsOnRails(railed, {"c"})), (std::vector<int>{7071, 7171}));
}

TEST(Endpoints, FileMissingIsNotFoundAndBadFileNamesThePath) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("client-ep-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto missing = ReadEndpointsFile((dir / "absent.json").string());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  std::ofstream(dir / "bad.json") << "{\"endpoints\":[{\"address\":\"x\"}]}";
  auto bad = ReadEndpointsFile((dir / "bad.json").string());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind((dir / "bad.json").string() + ": ", 0), 0u)
      << bad.status().message();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rdmastack::client
