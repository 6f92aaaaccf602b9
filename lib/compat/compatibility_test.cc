#include "lib/compat/compatibility.h"

#include <gtest/gtest.h>

#include "gateway/launcher/test_paths.h"

namespace rdmastack::compat {
namespace {

CompatibilityMatrix Shipped() {
  StatusOr<CompatibilityMatrix> m =
      LoadCompatibilityFile(gateway::testing::SourceDir() + "/gateway/compatibility.yaml");
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? *m : CompatibilityMatrix{};
}

TEST(Compatibility, ShippedFileEncodesTheFieldReport) {
  CompatibilityMatrix m = Shipped();
  EXPECT_TRUE(m.CheckGatewayLibrary("vgwrdma-v1.8.0", "1.2.0.68").ok());
  Status s = m.CheckGatewayLibrary("vgwrdma-v1.8.0", "2.0.0.109");
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.message(),
            "gateway build vgwrdma-v1.8.0 links libcuobjserver 1.x, not 2.0.0.109 (major 2)");
  EXPECT_TRUE(m.CheckGatewayLibrary("vgwrdma-cuobj2", "2.0.0.109").ok());
  EXPECT_FALSE(m.CheckGatewayLibrary("vgwrdma-cuobj2", "1.2.0.68").ok());
  EXPECT_FALSE(m.CheckGatewayLibrary("versitygw-http", "1.2.0.68").ok());
  EXPECT_TRUE(m.CheckClientServer("1.2.0.68", 1).ok());
  EXPECT_TRUE(m.CheckClientServer("1.2.0.68", 2).ok());
  EXPECT_EQ(m.CheckClientServer("1.4.0.1", 2).code(), StatusCode::kNotFound);
}

TEST(Compatibility, UnknownBuildOrLibraryIsNotFound) {
  CompatibilityMatrix m = Shipped();
  EXPECT_NE(m.CheckGatewayLibrary("vgwrdma-nightly", "1.2.0.68")
                .message()
                .find("not in the compatibility file"),
            std::string::npos);
  EXPECT_EQ(m.CheckGatewayLibrary("vgwrdma-v1.8.0", "1.3.0.1").code(), StatusCode::kNotFound);
}

TEST(Compatibility, ClientPrefixMatchesWholeComponents) {
  EXPECT_TRUE(VersionHasPrefix("1.2.0.68", "1.2"));
  EXPECT_TRUE(VersionHasPrefix("1.2", "1.2"));
  EXPECT_FALSE(VersionHasPrefix("1.20.0", "1.2"));
  EXPECT_FALSE(VersionHasPrefix("1", "1.2"));
  auto m = ParseCompatibility(R"(
schemaVersion: 1
clientInterop:
  - client: "1.2"
    serverMajors: [1]
)");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  Status s = m->CheckClientServer("1.2.0.68", 2);
  EXPECT_EQ(s.message(), "client library 1.2.0.68 is known to work with server 1.x, not 2.x");
  EXPECT_EQ(m->CheckClientServer("1.20.0.1", 1).code(), StatusCode::kNotFound);
}

TEST(Compatibility, MalformedFilesAreRejectedWithTheEntry) {
  struct Case {
    const char* yaml;
    const char* want;
  };
  const Case cases[] = {
      {"schemaVersion: 2", "schemaVersion must be 1"},
      {"schemaVersion: 1\ngatewayBuild: []", "unknown key 'gatewayBuild'"},
      {"schemaVersion: 1\ngatewayBuilds:\n  - name: a\n    serverLibraryMajors: [1]\n"
       "  - name: a\n    serverLibraryMajors: [2]",
       "duplicate gateway build a"},
      {"schemaVersion: 1\ngatewayBuilds:\n  - name: a\n    majors: [1]", "unknown key 'majors'"},
      {"schemaVersion: 1\ngatewayBuilds:\n  - name: a", "must be a list of majors"},
      {"schemaVersion: 1\ngatewayBuilds:\n  - serverLibraryMajors: [1]", "'name' is required"},
      {"schemaVersion: 1\ngatewayBuilds:\n  - name: a\n    serverLibraryMajors: [0]",
       "out of range"},
      {"schemaVersion: 1\nserverLibraries:\n  - version: 2.0.0.109\n    major: 1",
       "does not start with major 1"},
      {"schemaVersion: 1\nserverLibraries:\n  - version: 1.x\n    major: 1",
       "is not like 1.2.0.68"},
      {"schemaVersion: 1\nclientInterop:\n  - client: latest\n    serverMajors: [1]",
       "not a version prefix"},
      {"schemaVersion: 1\ngatewayBuilds:\n  - name: a\n    serverLibraryMajors: [one]",
       "compatibility file"},
      {"schemaVersion: [1", "compatibility file"},
      {"schemaVersion: 1\nserverLibraries:\n  - version: 1.2.0.68\n    major: 1\n    sha256: abc",
       "sha256 'abc' is not 64 lower-case hex digits"},
      {"schemaVersion: 1\nclientLibraries:\n  - version: 1.2.0.68", "'sha256' is required"},
      {"schemaVersion: 1\nclientLibraries:\n  - version: 1.2.0.68\n    sha256: "
       "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855",
       "not 64 lower-case hex digits"},
      {"schemaVersion: 1\nclientLibraries:\n  - version: 1.2.0.68\n    size: 3",
       "unknown key 'size'"},
  };
  for (const Case& c : cases) {
    StatusOr<CompatibilityMatrix> m = ParseCompatibility(c.yaml);
    ASSERT_FALSE(m.ok()) << c.yaml;
    EXPECT_NE(m.status().message().find(c.want), std::string::npos)
        << c.yaml << "\n=> " << m.status().message();
  }
}

TEST(Compatibility, LibraryDigestsAreOptionalAndFound) {
  const std::string hex(64, 'a');
  StatusOr<CompatibilityMatrix> m = ParseCompatibility(
      "schemaVersion: 1\nserverLibraries:\n  - version: 1.2.0.68\n    major: 1\n    sha256: " +
      hex + "\n  - version: 2.0.0.109\n    major: 2\nclientLibraries:\n  - version: 1.2.0.68\n" +
      "    sha256: " + std::string(64, 'b') + "\n");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->FindServerLibrary("1.2.0.68")->sha256, hex);
  EXPECT_EQ(m->FindServerLibrary("2.0.0.109")->sha256, "");
  ASSERT_NE(m->FindClientLibrary("1.2.0.68"), nullptr);
  EXPECT_EQ(m->FindClientLibrary("1.2.0.68")->sha256, std::string(64, 'b'));
  EXPECT_EQ(m->FindClientLibrary("1.2.0.69"), nullptr);
  EXPECT_FALSE(ParseCompatibility("schemaVersion: 1\nclientLibraries:\n  - version: 1.2.0.68\n"
                                  "    sha256: " +
                                  hex + "\n  - version: 1.2.0.68\n    sha256: " + hex + "\n")
                   .ok());
}

TEST(Compatibility, MissingFileIsNotFound) {
  EXPECT_EQ(LoadCompatibilityFile("/nonexistent/compat.yaml").status().code(),
            StatusCode::kNotFound);
}

}  // namespace
}  // namespace rdmastack::compat
