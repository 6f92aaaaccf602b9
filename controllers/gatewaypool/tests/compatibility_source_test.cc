#include "controllers/gatewaypool/compatibility_source.h"

#include <gtest/gtest.h>

#include "controllers/gatewaypool/tests/test_pools.h"
#include "controllers/gatewaypool/track.h"

namespace rdmastack::gatewaypool {
namespace {

runtime::ObjectPtr ConfigMap(const std::string& rv, const std::string& yaml) {
  k8s::JsonObject o;
  o.SetApiVersion("v1");
  o.SetKind("ConfigMap");
  o.SetNamespace("rdmastack-system");
  o.SetName("compat");
  o.SetResourceVersion(rv);
  if (!yaml.empty()) (void)o.SetString({"data", kCompatibilityConfigMapKey}, yaml);
  return std::make_shared<const k8s::JsonObject>(std::move(o));
}

TEST(CompatibilitySourceTest, BuiltInCopyIsTheShippedFile) {
  auto source = CompatibilitySource::Create("", nullptr, "");
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  auto m = (*source)->Current();
  ASSERT_TRUE(m.ok());
  EXPECT_NE((*m)->FindGatewayBuildForVersion("1.8.0"), nullptr);
  EXPECT_NE((*m)->FindGatewayBuildForVersion("1.8.0-cuobj2"), nullptr);
}

TEST(CompatibilitySourceTest, ConfigMapOverridesAndFollowsEdits) {
  runtime::Store store;
  auto source = CompatibilitySource::Create("", &store, "rdmastack-system/compat");
  ASSERT_TRUE(source.ok());
  // Missing: every pool is refused, with what to create.
  auto missing = (*source)->Current();
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("does not exist"), std::string::npos);

  // A site that validated vgwrdma 1.8.0 against a 1.3 library adds it.
  std::string yaml(BuiltInCompatibilityYaml());
  yaml.replace(yaml.find("serverLibraries:"), 16,
               "serverLibraries:\n  - version: 1.3.0.5\n    major: 1");
  store.Upsert(ConfigMap("1", yaml));
  auto m = (*source)->Current();
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  crd::GatewayPoolSpec spec = testing::SamplePool().spec;
  spec.server_library.version = "1.3.0.5";
  EXPECT_TRUE(DecideTrack(spec, **m).track);
  EXPECT_FALSE(DecideTrack(spec, testing::ShippedMatrix()).track);

  // A broken edit refuses rather than falling back, and names the ConfigMap.
  store.Upsert(ConfigMap("2", "schemaVersion: 7\n"));
  auto broken = (*source)->Current();
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.status().message().find("rdmastack-system/compat"), std::string::npos)
      << broken.status().message();
  store.Upsert(ConfigMap("3", ""));
  EXPECT_NE((*source)->Current().status().message().find("has no key"), std::string::npos);
}

TEST(CompatibilitySourceTest, UnreadableFileFailsAtStart) {
  EXPECT_FALSE(CompatibilitySource::Create("/nonexistent/compat.yaml", nullptr, "").ok());
}

}  // namespace
}  // namespace rdmastack::gatewaypool
