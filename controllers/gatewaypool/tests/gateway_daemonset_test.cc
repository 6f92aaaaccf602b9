#include "controllers/gatewaypool/gateway_daemonset.h"

#include <gtest/gtest.h>

#include "controllers/common/render.h"
#include "controllers/gatewaypool/tests/test_pools.h"
#include "tests/harness/golden.h"

namespace rdmastack::gatewaypool {
namespace {

using testing::SamplePool;
using testing::ShippedMatrix;

k8s::JsonObject Render(const crd::GatewayPool& pool, GatewayRenderOptions options = {}) {
  const TrackDecision d = DecideTrack(pool.spec, ShippedMatrix());
  EXPECT_TRUE(d.track) << d.message;
  auto ds = RenderGatewayDaemonSet(pool, *d.track, options);
  EXPECT_TRUE(ds.ok()) << ds.status().ToString();
  return ds.ok() ? *ds : k8s::JsonObject();
}

std::string Env(const k8s::JsonObject& ds, const std::string& name) {
  for (const auto& e : ds.GetArray({"spec", "template", "spec", "containers", "0", "env"})) {
    if (e.GetString({"name"}) != name) continue;
    if (auto v = e.GetString({"value"})) return *v;
    if (auto s = e.Get({"valueFrom", "secretKeyRef"})) return "secret:" + s->Serialize();
  }
  return "<unset>";
}

// The whole rendering of the seed pool, reviewed by hand.
TEST(GatewayDaemonSetTest, SeedPoolMatchesGolden) {
  GatewayRenderOptions options;
  options.pod_labels = {{"rdmastack.io/simulate", "run"}};
  ::rdmastack::testing::ExpectMatchesGolden(
      "controllers/gatewaypool/tests/golden/gateway-daemonset-kvcache-v1.json",
      Render(SamplePool(), options).SerializePretty() + "\n");
}

// The install's pull secrets, then the pool's own; the install's priority class.
TEST(GatewayDaemonSetTest, PullSecretsOfTheInstallThenOfThePool) {
  crd::GatewayPool pool = SamplePool();
  pool.spec.image_pull_secrets = {{"site-registry"}, {"mirror"}};
  GatewayRenderOptions options;
  options.node_pods.image_pull_secrets = {"mirror"};
  const k8s::JsonObject ds = Render(pool, options);
  std::string names;
  for (const auto& ref : ds.GetArray({"spec", "template", "spec", "imagePullSecrets"}))
    names += ref.GetString({"name"}).value_or("?") + " ";
  EXPECT_EQ(names, "mirror site-registry ");
  EXPECT_EQ(ds.GetString({"spec", "template", "spec", "priorityClassName"}),
            "system-node-critical");
}

TEST(GatewayDaemonSetTest, FollowsTheLaunchContract) {
  const k8s::JsonObject ds = Render(SamplePool());
  EXPECT_EQ(ds.Name(), "kvcache-gateway-v1");
  EXPECT_EQ(ds.GetBool({"spec", "template", "spec", "hostNetwork"}), true);
  EXPECT_EQ(Env(ds, "RDMASTACK_GW_S3_PORT"), "7071");
  EXPECT_EQ(Env(ds, "RDMASTACK_GW_RDMA_PORT"), "19100");
  EXPECT_EQ(Env(ds, "RDMASTACK_GW_RDMA_SELECT"), "bond0");
  EXPECT_EQ(Env(ds, "RDMASTACK_GW_SERVER_LIB_VERSION"), "1.2.0.68");
  EXPECT_EQ(Env(ds, "RDMASTACK_GW_BUILD"), "vgwrdma-v1.8.0");
  // {nodeName} is the launcher's {node}; the other placeholders are filled here.
  EXPECT_EQ(Env(ds, "RDMASTACK_GW_GWROOT_TEMPLATE"), "/lustre/agent/vol0/kvcache-s3-{node}");
  EXPECT_EQ(Env(ds, "ROOT_ACCESS_KEY_ID"),
            R"(secret:{"name":"kvcache-s3-root","key":"accessKeyId"})");
  EXPECT_EQ(Env(ds, "VGW_POOL_BUF_SIZE"), "1073741824");
  // 4 x 1 GiB pinned + 1 GiB headroom.
  EXPECT_EQ(ds.GetString(
                {"spec", "template", "spec", "containers", "0", "resources", "requests", "memory"}),
            "5368709120");
  EXPECT_EQ(ds.GetString({"spec", "template", "spec", "containers", "0", "securityContext",
                          "capabilities", "add", "0"}),
            "IPC_LOCK");
  const auto terms =
      ds.GetArray({"spec", "template", "spec", "affinity", "nodeAffinity",
                   "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"});
  ASSERT_EQ(terms.size(), 1u);
  const std::string term = terms[0].Serialize();
  for (const char* key : {"node-role.rdmastack.io/storage", "rdmastack.io/gateway-capable",
                          "gwp.rdmastack.io/storage.kvcache.v1"}) {
    EXPECT_NE(term.find(key), std::string::npos) << key << " in " << term;
  }
  const std::string init =
      ds.GetArray({"spec", "template", "spec", "initContainers", "0", "command"})[2].Serialize();
  EXPECT_NE(init.find("libcuobjserver.so.1.2.0.68"), std::string::npos) << init;
  EXPECT_NE(init.find("/pinned/libcuobjserver.so.1"), std::string::npos) << init;
}

// s3.tlsSecret: the gateway serves HTTPS from the Secret, every probe speaks HTTPS, and the
// readiness probe verifies against ca.crt for the pod's (the node's) address.
TEST(GatewayDaemonSetTest, TlsSecretServesHttpsAndProbesVerifyIt) {
  crd::GatewayPool pool = SamplePool();
  const k8s::JsonObject plain = Render(pool);
  EXPECT_EQ(Env(plain, "RDMASTACK_GW_TLS_CERT"), "<unset>");
  pool.spec.s3.tls_secret = crd::LocalSecretRef{"kvcache-tls"};
  const k8s::JsonObject ds = Render(pool);
  EXPECT_EQ(Env(ds, "RDMASTACK_GW_TLS_CERT"), "/etc/rdmastack/s3-tls/tls.crt");
  EXPECT_EQ(Env(ds, "RDMASTACK_GW_TLS_KEY"), "/etc/rdmastack/s3-tls/tls.key");
  EXPECT_EQ(Env(ds, "RDMASTACK_PROBE_CA_FILE"), "/etc/rdmastack/s3-tls/ca.crt");
  const k8s::JsonObject c = *ds.Get({"spec", "template", "spec", "containers", "0"});
  std::string tls_name;
  for (const auto& e : c.GetArray({"env"})) {
    if (e.GetString({"name"}) == "RDMASTACK_PROBE_TLS_NAME")
      tls_name = e.GetString({"valueFrom", "fieldRef", "fieldPath"}).value_or("");
  }
  EXPECT_EQ(tls_name, "status.podIP");
  EXPECT_EQ(c.GetString({"startupProbe", "httpGet", "scheme"}), "HTTPS");
  EXPECT_EQ(c.GetString({"livenessProbe", "httpGet", "scheme"}), "HTTPS");
  EXPECT_EQ(c.GetArray({"readinessProbe", "exec", "command"})[3].Serialize(),
            "\"https://127.0.0.1:7071\"");
  std::string mount, volume;
  for (const auto& m : c.GetArray({"volumeMounts"})) {
    if (m.GetString({"name"}) == "s3-tls") mount = m.Serialize();
  }
  for (const auto& v : ds.GetArray({"spec", "template", "spec", "volumes"})) {
    if (v.GetString({"name"}) == "s3-tls") volume = v.Serialize();
  }
  EXPECT_EQ(mount, R"({"name":"s3-tls","mountPath":"/etc/rdmastack/s3-tls","readOnly":true})");
  EXPECT_EQ(volume, R"({"name":"s3-tls","secret":{"defaultMode":256,"secretName":"kvcache-tls"}})");
  EXPECT_NE(ds.Annotation(controllers::kAppliedHashAnnotation),
            plain.Annotation(controllers::kAppliedHashAnnotation));
}

TEST(GatewayDaemonSetTest, RequireMountComparesTheRootWithTheIamDirectory) {
  crd::GatewayPool pool = SamplePool();
  EXPECT_EQ(Env(Render(pool), "RDMASTACK_GW_REQUIRE_MOUNT"), "<unset>");
  pool.spec.backend.posix.require_mount = true;
  const k8s::JsonObject ds = Render(pool);
  // The launcher compares the root's file system with the IAM directory's, a hostPath under
  // /var/lib/rdmastack on the node's system disk.
  EXPECT_EQ(Env(ds, "RDMASTACK_GW_REQUIRE_MOUNT"), Env(ds, "VGW_IAM_DIR"));
  std::string iam_host_path;
  for (const auto& v : ds.GetArray({"spec", "template", "spec", "volumes"})) {
    if (v.GetString({"name"}) == "iam")
      iam_host_path = v.GetString({"hostPath", "path"}).value_or("");
  }
  EXPECT_EQ(iam_host_path.rfind("/var/lib/rdmastack/", 0), 0u) << iam_host_path;
}

// Xattr is the launcher's default and is not rendered (a pool made before the field keeps its
// template, so its gateways are not replaced by an operator upgrade); the others are, and a
// sidecar template gets the launcher's {node} as the root's does.
TEST(GatewayDaemonSetTest, MetadataModesReachTheLauncher) {
  crd::GatewayPool pool = SamplePool();
  const k8s::JsonObject xattr = Render(pool);
  EXPECT_EQ(Env(xattr, "RDMASTACK_GW_METADATA"), "<unset>");
  EXPECT_EQ(Env(xattr, "RDMASTACK_GW_SIDECAR_TEMPLATE"), "<unset>");

  pool.spec.backend.posix.metadata = crd::BackendMetadata::kNone;
  const k8s::JsonObject none = Render(pool);
  EXPECT_EQ(Env(none, "RDMASTACK_GW_METADATA"), "None");
  EXPECT_EQ(Env(none, "RDMASTACK_GW_SIDECAR_TEMPLATE"), "<unset>");
  EXPECT_NE(none.Annotation(controllers::kAppliedHashAnnotation),
            xattr.Annotation(controllers::kAppliedHashAnnotation));

  pool.spec.backend.posix.metadata = crd::BackendMetadata::kSidecar;
  pool.spec.backend.posix.sidecar_path_template =
      pool.spec.backend.posix.host_path + "/meta-{poolName}-{nodeName}";
  const k8s::JsonObject sidecar = Render(pool);
  EXPECT_EQ(Env(sidecar, "RDMASTACK_GW_METADATA"), "Sidecar");
  EXPECT_EQ(Env(sidecar, "RDMASTACK_GW_SIDECAR_TEMPLATE"),
            pool.spec.backend.posix.host_path + "/meta-" + pool.metadata.name + "-{node}");
}

// The compatibility data's sha256 of the library reaches the launcher; without one, nothing is
// rendered (the bytes are not checked), so the shipped data's DaemonSets are unchanged.
TEST(GatewayDaemonSetTest, PinnedLibraryBytesReachTheLauncher) {
  const crd::GatewayPool pool = SamplePool();
  EXPECT_EQ(Env(Render(pool), "RDMASTACK_GW_SERVER_LIB_SHA256"), "<unset>");
  auto matrix = compat::ParseCompatibility(
      "schemaVersion: 1\ngatewayBuilds:\n  - name: vgwrdma-v1.8.0\n    versions: [\"1.8.0\"]\n"
      "    serverLibraryMajors: [1]\nserverLibraries:\n  - version: 1.2.0.68\n    major: 1\n"
      "    sha256: " +
      std::string(64, 'e') + "\n");
  ASSERT_TRUE(matrix.ok()) << matrix.status().ToString();
  const TrackDecision d = DecideTrack(pool.spec, *matrix);
  ASSERT_TRUE(d.track) << d.message;
  EXPECT_EQ(d.track->library_sha256, std::string(64, 'e'));
  auto ds = RenderGatewayDaemonSet(pool, *d.track, {});
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  EXPECT_EQ(Env(*ds, "RDMASTACK_GW_SERVER_LIB_SHA256"), std::string(64, 'e'));
  // The track annotation carries it, so a rollback renders the same pods.
  EXPECT_EQ(ParseTrack(ds->Annotation(kTrackSpecAnnotation).value_or(""))->library_sha256,
            std::string(64, 'e'));
}

TEST(GatewayDaemonSetTest, SecondMajorGetsItsOwnObjectAndPorts) {
  const k8s::JsonObject ds = Render(SamplePool("gatewaypool-kvcache-2.0.yaml"));
  EXPECT_EQ(ds.Name(), "kvcache-gateway-v2");
  EXPECT_EQ(Env(ds, "RDMASTACK_GW_S3_PORT"), "7072");
  EXPECT_EQ(Env(ds, "RDMASTACK_GW_SERVER_LIB_MAJOR"), "2");
  EXPECT_EQ(ds.Label(kTrackLabel), "v2");
}

TEST(GatewayDaemonSetTest, HashFollowsTheContent) {
  crd::GatewayPool pool = SamplePool();
  const auto hash = [](const k8s::JsonObject& ds) {
    return ds.Annotation("rdmastack.io/applied-hash").value_or("");
  };
  const std::string before = hash(Render(pool));
  EXPECT_EQ(hash(Render(pool)), before);
  pool.spec.rdma.buffer_pool.buffer_count = 2;
  EXPECT_NE(hash(Render(pool)), before);
}

TEST(GatewayDaemonSetTest, BadQuantityIsAnError) {
  crd::GatewayPool pool = SamplePool();
  const TrackDecision d = DecideTrack(pool.spec, ShippedMatrix());
  pool.spec.rdma.buffer_pool.buffer_size = crd::IntOrString::Str("lots");
  EXPECT_FALSE(RenderGatewayDaemonSet(pool, *d.track, {}).ok());
}

}  // namespace
}  // namespace rdmastack::gatewaypool
