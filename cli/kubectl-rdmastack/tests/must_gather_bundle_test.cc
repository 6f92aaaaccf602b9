// The bundle's layout and summary: where each thing goes, which keys count as rdmastack's.
#include <gtest/gtest.h>

#include "cli/kubectl-rdmastack/must_gather/bundle.h"
#include "crds/types/kinds.h"

namespace rdmastack::plugin::bundle {
namespace {

TEST(BundleLayoutTest, PathsByKindNamespaceAndName) {
  EXPECT_EQ(RootName(1796472000), "rdmastack-must-gather-20261205T120000Z");
  EXPECT_EQ(ObjectFile(crd::kinds::GatewayPool(), "ml", "archive"),
            "objects/gatewaypools.rdmastack.io/ml/archive.json");
  EXPECT_EQ(ObjectFile(crd::kinds::RdmaNode(), "", "gpu-node-0"),
            "objects/rdmanodes.rdmastack.io/gpu-node-0.json");
  EXPECT_EQ(ObjectFile(k8s::kinds::Pod(), "rdmastack-system", "agent-x"),
            "objects/pods/rdmastack-system/agent-x.json");
  EXPECT_EQ(ObjectFile(k8s::kinds::DaemonSet(), "ns", "d"), "objects/daemonsets.apps/ns/d.json");
  EXPECT_EQ(LogPath("ns", "pod", "agent", false), "logs/ns/pod/agent.log");
  EXPECT_EQ(LogPath("ns", "pod", "agent", true), "logs/ns/pod/agent.previous.log");
  EXPECT_EQ(EventsPath("ml"), "events/namespaces/ml.json");
  EXPECT_EQ(NodePath("stg-node-0"), "nodes/stg-node-0.json");
  EXPECT_EQ(SecretsPath("ml"), "secrets/ml.json");
  EXPECT_EQ(HelmPath("rdmastack-system", "rdmastack", "values.json"),
            "helm/rdmastack-system/rdmastack/values.json");
}

TEST(BundleLayoutTest, NamesCannotClimbOutOfTheirFolder) {
  EXPECT_EQ(SafePart(".."), "_..");
  EXPECT_EQ(SafePart("a/../b"), "a_.._b");
  EXPECT_EQ(SafePart(""), "_");
  EXPECT_EQ(LogPath("..", "../../etc", "passwd", false), "logs/_../.._.._etc/passwd.log");
}

TEST(BundleLayoutTest, RdmastackKeysAreTheDomainAndItsSubdomains) {
  for (const char* key : {"rdmastack.io/gateway-capable", "gwp.rdmastack.io/ml.archive.v1",
                          "upgrade.gwp.rdmastack.io/ml.archive", "node-role.rdmastack.io/storage",
                          "sim.rdmastack.io/fixture"})
    EXPECT_TRUE(IsRdmastackKey(key)) << key;
  for (const char* key : {"kubernetes.io/hostname", "notrdmastack.io/x", "rdmastack.io",
                          "rdmastack.io.evil.com/x", "node.alpha.kubernetes.io/ttl"})
    EXPECT_FALSE(IsRdmastackKey(key)) << key;
}

TEST(BundleTest, FinishScrubsEveryFileAndFailureAndAddsTheSummary) {
  Bundle b("root", {{"cluster", "https://x"}});
  b.Add("logs/ns/p/c.log", "started with key supersecretvalue\n");
  b.Fail("logs", "ns/p/c (previous)", "400 BadRequest: previous terminated container not found");
  b.Fail("events", "list events in ml", "quoting supersecretvalue and token=abc");
  b.Note("pods and logs", "1 pods, 1 logs");
  SecretScrubber scrubber;
  scrubber.Add("supersecretvalue");
  const std::vector<ArchiveEntry> entries = b.Finish(scrubber);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].path, "root/SUMMARY.md");
  EXPECT_EQ(entries[1].path, "root/logs/ns/p/c.log");
  EXPECT_EQ(entries[1].content, "started with key <redacted>\n");
  const std::string& summary = entries[0].content;
  EXPECT_NE(summary.find("- cluster: https://x"), std::string::npos) << summary;
  EXPECT_NE(summary.find("| pods and logs | 1 pods, 1 logs |"), std::string::npos) << summary;
  EXPECT_NE(summary.find("## Failures (2)"), std::string::npos) << summary;
  EXPECT_NE(summary.find("- logs: ns/p/c (previous): 400 BadRequest: previous terminated "
                         "container not found"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("quoting <redacted> and token=<redacted>"), std::string::npos) << summary;
  EXPECT_EQ(summary.find("supersecretvalue"), std::string::npos) << summary;
  EXPECT_NE(summary.find("- logs/ns/p/c.log"), std::string::npos) << summary;
}

}  // namespace
}  // namespace rdmastack::plugin::bundle
