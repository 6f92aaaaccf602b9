// The client DaemonSet, the endpoints ConfigMap and the node label as the reconciler writes them.
#include "controllers/clientprofile/client_workload.h"

#include <gtest/gtest.h>

#include <map>

#include "controllers/common/render.h"
#include "controllers/common/tests/node_access_expectations.h"
#include "crds/types/json.h"
#include "crds/types/test_support.h"

namespace rdmastack::clientprofile {
namespace {

template <typename T>
T Load(const std::string& file, const char* kind) {
  auto parsed = crd::ParseResource<T>(crd::testing::YamlToJson(
      crd::testing::FindKind(crd::testing::LoadSourceYaml("crds/samples/" + file), kind)));
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  T out = parsed.ok() ? *parsed : T{};
  out.metadata.namespace_ = "ml";
  out.metadata.uid = "uid-1";
  return out;
}

crd::ClientProfile Sample(const char* file = "clientprofile-gpudirect.yaml") {
  return Load<crd::ClientProfile>(file, "ClientProfile");
}

ClientRenderOptions Options() {
  ClientRenderOptions o;
  o.image = "ghcr.io/rdmastack/client:0.1.0";
  o.pod_labels = {{"rdmastack.io/simulate", "run"}};
  o.extra_args = {"--probes-file=/host/etc/rdmastack-fixture/probes.txt"};
  return o;
}

std::vector<std::string> Args(const k8s::JsonObject& ds) {
  std::vector<std::string> out;
  for (const auto& a : ds.GetArray({"spec", "template", "spec", "containers", "0", "args"}))
    out.push_back(std::string(a.value().GetString()));
  return out;
}

std::string ArgAfter(const std::vector<std::string>& args, const std::string& flag) {
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == flag) return args[i + 1];
  }
  return "<absent>";
}

TEST(ClientNodeLabelTest, NamespacedAndWithinTheLabelLimits) {
  EXPECT_EQ(ClientNodeLabel("ml", "kvcache-gpudirect"), "rdmastack.io/client.ml.kvcache-gpudirect");
  EXPECT_NE(ClientNodeLabel("a", "b-c"), ClientNodeLabel("a-b", "c"));
  const std::string long_name(200, 'p');
  const std::string a = ClientNodeLabel("team-a", long_name);
  const std::string b = ClientNodeLabel("team-b", long_name);
  EXPECT_NE(a, b);
  EXPECT_LE(a.size() - sizeof("rdmastack.io/") + 1, 63u) << a;
  EXPECT_EQ(a.rfind("rdmastack.io/client.team-a.", 0), 0u) << a;
}

TEST(ReadyEndpointsTest, ReadyAndNotTerminatingOnly) {
  auto v1 = k8s::JsonObject::Parse(R"({
    "metadata":{"name":"kvcache-gateway-v1-0","labels":{"gatewaypool.rdmastack.io/library-version":"1.2.0.68"}},
    "ports":[{"name":"rdma","port":19100},{"name":"s3","port":7071}],
    "endpoints":[
      {"addresses":["198.18.0.12"],"nodeName":"stg-node-2","conditions":{"ready":true,"serving":true,"terminating":false}},
      {"addresses":["198.18.0.10"],"nodeName":"stg-node-0","conditions":{"ready":false,"serving":true,"terminating":true}},
      {"addresses":["198.18.0.11"],"nodeName":"stg-node-1","conditions":{"ready":false}}]})");
  auto v2 = k8s::JsonObject::Parse(R"({
    "metadata":{"name":"kvcache-gateway-v2-0","labels":{"gatewaypool.rdmastack.io/library-version":"2.0.0.109"}},
    "ports":[{"name":"s3","port":7072}],
    "endpoints":[
      {"addresses":["198.18.0.10"],"nodeName":"stg-node-0","conditions":{"ready":true}},
      {"addresses":["198.18.0.10"],"nodeName":"stg-node-0","conditions":{"ready":true}}]})");
  ASSERT_TRUE(v1.ok() && v2.ok());
  const std::vector<PoolEndpoint> got = ReadyEndpoints({&*v1, &*v2});
  const std::vector<PoolEndpoint> want = {{"stg-node-0", "198.18.0.10", 7072, "2.0.0.109"},
                                          {"stg-node-2", "198.18.0.12", 7071, "1.2.0.68"}};
  EXPECT_EQ(got, want);
}

// A multi-rail pool's slices name their rail; each endpoint carries it to the clients, which use
// the gateways on their own rails.
TEST(ReadyEndpointsTest, ARailsSliceGivesItsEndpointsTheRail) {
  auto b = k8s::JsonObject::Parse(R"({
    "metadata":{"name":"twin-gateway-v1-rail-b-0","labels":{
      "gatewaypool.rdmastack.io/library-version":"1.2.0.68","gatewaypool.rdmastack.io/rail":"rail-b"}},
    "ports":[{"name":"s3","port":7171}],
    "endpoints":[{"addresses":["198.18.0.12"],"nodeName":"stg-node-2","conditions":{"ready":true}}]})");
  ASSERT_TRUE(b.ok());
  const std::vector<PoolEndpoint> got = ReadyEndpoints({&*b});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].rail, "rail-b");
  auto pool = std::optional(Load<crd::GatewayPool>("gatewaypool-kvcache.yaml", "GatewayPool"));
  const k8s::JsonObject cm = RenderEndpointsConfigMap(Sample(), *pool, got);
  auto data = k8s::JsonObject::Parse(cm.GetString({"data", kEndpointsKey}).value_or(""));
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->GetString({"endpoints", "0", "rail"}), "rail-b");
}

TEST(EndpointsConfigMapTest, PoolRegionAndEndpoints) {
  const auto pool =
      std::optional(Load<crd::GatewayPool>("gatewaypool-kvcache.yaml", "GatewayPool"));
  const k8s::JsonObject cm =
      RenderEndpointsConfigMap(Sample(), *pool, {{"stg-node-0", "198.18.0.10", 7071, "1.2.0.68"}});
  EXPECT_EQ(cm.Name(), "kvcache-gpudirect-client-endpoints");
  EXPECT_EQ(cm.Namespace(), "ml");
  EXPECT_EQ(cm.GetString({"metadata", "ownerReferences", "0", "kind"}), "ClientProfile");
  EXPECT_TRUE(cm.Annotation(controllers::kAppliedHashAnnotation).has_value());
  auto data = k8s::JsonObject::Parse(cm.GetString({"data", kEndpointsKey}).value_or(""));
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->GetString({"pool"}), "ml/kvcache");
  EXPECT_EQ(data->GetString({"region"}), pool->spec.s3.region);
  EXPECT_EQ(data->GetString({"endpoints", "0", "address"}), "198.18.0.10");
  EXPECT_EQ(data->GetInt({"endpoints", "0", "s3Port"}), 7071);
  // No endpoints is an empty list, not a missing one: the client tells the two apart.
  const k8s::JsonObject empty = RenderEndpointsConfigMap(Sample(), *pool, {});
  auto none = k8s::JsonObject::Parse(empty.GetString({"data", kEndpointsKey}).value_or(""));
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->Find({"endpoints"})->IsArray());
  EXPECT_FALSE(none->Has({"networks"})) << "a pool whose status names no network";
}

// The networks in the pool's status reach the clients, which pick each GPU's NIC on them.
TEST(EndpointsConfigMapTest, ThePoolsNetworksArePublished) {
  auto pool = std::optional(Load<crd::GatewayPool>("gatewaypool-kvcache.yaml", "GatewayPool"));
  pool->status.emplace();
  pool->status->networks = {{"rail-a", "10.10.0.0/16"}, {std::nullopt, "10.11.0.0/24"}};
  const k8s::JsonObject cm = RenderEndpointsConfigMap(Sample(), *pool, {});
  auto data = k8s::JsonObject::Parse(cm.GetString({"data", kEndpointsKey}).value_or(""));
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->GetString({"networks", "0", "rail"}), "rail-a");
  EXPECT_EQ(data->GetString({"networks", "0", "cidr"}), "10.10.0.0/16");
  EXPECT_FALSE(data->Has({"networks", "1", "rail"}));
  EXPECT_EQ(data->GetString({"networks", "1", "cidr"}), "10.11.0.0/24");
}

// A pool with s3.tlsSecret: https and its CA, for the clients' check and the applications.
TEST(EndpointsConfigMapTest, AnHttpsPoolPublishesItsSchemeAndCa) {
  auto pool = std::optional(Load<crd::GatewayPool>("gatewaypool-kvcache.yaml", "GatewayPool"));
  auto data_of = [&](const std::string& ca) {
    const k8s::JsonObject cm =
        RenderEndpointsConfigMap(Sample(), *pool, {{"stg-node-0", "198.18.0.10", 7071, ""}}, ca);
    return *k8s::JsonObject::Parse(cm.GetString({"data", kEndpointsKey}).value_or("{}"));
  };
  EXPECT_EQ(data_of("").GetString({"scheme"}), "http");
  EXPECT_FALSE(data_of("").Has({"caBundle"}));
  pool->spec.s3.tls_secret = crd::LocalSecretRef{"kvcache-tls"};
  const k8s::JsonObject https = data_of("-----BEGIN CERTIFICATE-----\n");
  EXPECT_EQ(https.GetString({"scheme"}), "https");
  EXPECT_EQ(https.GetString({"caBundle"}), "-----BEGIN CERTIFICATE-----\n");
}

TEST(ClientDaemonSetTest, RunsTheClientWithTheProfileSettings) {
  auto ds = RenderClientDaemonSet(Sample(), Options());
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  EXPECT_EQ(ds->Name(), "kvcache-gpudirect-client");
  const std::vector<std::string> args = Args(*ds);
  ASSERT_FALSE(args.empty());
  EXPECT_EQ(args[0], "run");
  EXPECT_EQ(ArgAfter(args, "--profile"), "ml/kvcache-gpudirect");
  EXPECT_EQ(ArgAfter(args, "--transport"), "GPUDirect");
  EXPECT_EQ(ArgAfter(args, "--memory-registration"), "Auto");
  EXPECT_EQ(ArgAfter(args, "--max-transfer-size"), std::to_string(192LL << 20));
  EXPECT_EQ(ArgAfter(args, "--gid-index"), "Auto");
  EXPECT_EQ(ArgAfter(args, "--install-dir"), "/var/lib/rdmastack-client/install");
  EXPECT_EQ(ArgAfter(args, "--host-install-dir"), "/var/lib/rdmastack/client/ml.kvcache-gpudirect");
  // The sample's s3User: the client signs with the profile's own user (S3UserSecretName).
  EXPECT_EQ(ArgAfter(args, "--credentials-dir"), "/etc/rdmastack-client/credentials");
  EXPECT_NE(ds->Serialize().find(R"("secretName":"kvcache-gpudirect-s3-user")"), std::string::npos);
  EXPECT_NE(std::find(args.begin(), args.end(), "--load-peermem"), args.end());
  // Live probes on a real node; the harness's --probes-file (last) overrides them on simulated
  // ones.
  EXPECT_EQ(ArgAfter(args, "--root"), "/host");
  EXPECT_NE(std::find(args.begin(), args.end(), "--live-probes"), args.end());
  EXPECT_EQ(args.back(), "--probes-file=/host/etc/rdmastack-fixture/probes.txt");
  // Opening the host's devices (and loading nvidia_peermem) takes a privileged container.
  controllers::testing::ExpectLiveProbeAccess(
      *ds->Get({"spec", "template", "spec", "containers", "0"}));
  // Scheduled onto the nodes the operator labels, eligible or ready.
  const auto expr = ds->Get({"spec", "template", "spec", "affinity", "nodeAffinity",
                             "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms",
                             "0", "matchExpressions", "0"});
  ASSERT_TRUE(expr.has_value());
  EXPECT_EQ(expr->GetString({"key"}), "rdmastack.io/client.ml.kvcache-gpudirect");
  EXPECT_EQ(expr->GetString({"values", "0"}), "eligible");
  EXPECT_EQ(expr->GetString({"values", "1"}), "ready");
  EXPECT_EQ(ds->GetString({"spec", "template", "metadata", "labels", "rdmastack.io/simulate"}),
            "run");
  // The pinned library and its SONAME link.
  const std::string init =
      ds->GetString({"spec", "template", "spec", "initContainers", "0", "command", "2"})
          .value_or("");
  EXPECT_NE(init.find("libcuobjclient.so.1.2.0.68"), std::string::npos) << init;
  EXPECT_NE(init.find("ln -sfn libcuobjclient.so.1.2.0.68 /staging/libcuobjclient.so.1"),
            std::string::npos)
      << init;
  // GPU nodes get no API access.
  EXPECT_EQ(ds->GetBool({"spec", "template", "spec", "automountServiceAccountToken"}), false);
}

// The install's pull secrets and priority class (controllers/common/node_pod_policy.h).
TEST(ClientDaemonSetTest, NodePodPolicy) {
  ClientRenderOptions options = Options();
  options.node_pods.image_pull_secrets = {"mirror"};
  options.node_pods.priority_class_name = "storage-critical";
  auto ds = RenderClientDaemonSet(Sample(), options);
  ASSERT_TRUE(ds.ok()) << ds.status().ToString();
  EXPECT_EQ(ds->GetString({"spec", "template", "spec", "imagePullSecrets", "0", "name"}), "mirror");
  EXPECT_EQ(ds->GetString({"spec", "template", "spec", "priorityClassName"}), "storage-critical");
}

// The uninstall pods: only on `uninstall` nodes, never the client's selector, no privileges.
TEST(UninstallDaemonSetTest, RemovesTheProfilesDirectoryOnUninstallNodesOnly) {
  ClientRenderOptions options = Options();
  options.node_pods.image_pull_secrets = {"mirror"};
  const k8s::JsonObject ds = RenderUninstallDaemonSet(Sample(), options);
  EXPECT_EQ(ds.Name(), "kvcache-gpudirect-client-uninstall");
  EXPECT_EQ(ds.GetString({"spec", "selector", "matchLabels", "app.kubernetes.io/component"}),
            "client-uninstall");
  auto client = RenderClientDaemonSet(Sample(), options);
  ASSERT_TRUE(client.ok());
  EXPECT_EQ(client->GetString({"spec", "selector", "matchLabels", "app.kubernetes.io/component"}),
            "client");
  EXPECT_EQ(Args(ds), (std::vector<std::string>{"uninstall", "--install-dir",
                                                "/var/lib/rdmastack-client/install", "--state-dir",
                                                "/run/rdmastack-client"}));
  const auto expr = ds.Get({"spec", "template", "spec", "affinity", "nodeAffinity",
                            "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms",
                            "0", "matchExpressions", "0"});
  ASSERT_TRUE(expr.has_value());
  EXPECT_EQ(expr->GetString({"key"}), "rdmastack.io/client.ml.kvcache-gpudirect");
  EXPECT_EQ(expr->GetArray({"values"}).size(), 1u);
  EXPECT_EQ(expr->GetString({"values", "0"}), "uninstall");
  const auto c = ds.Get({"spec", "template", "spec", "containers", "0"});
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->GetString({"securityContext", "capabilities", "drop", "0"}), "ALL");
  EXPECT_FALSE(c->GetBool({"securityContext", "privileged"}).has_value());
  EXPECT_EQ(c->GetString({"readinessProbe", "exec", "command", "1"}), "ready");
  EXPECT_EQ(ds.GetString({"spec", "template", "spec", "volumes", "0", "hostPath", "path"}),
            "/var/lib/rdmastack/client/ml.kvcache-gpudirect");
  EXPECT_EQ(ds.GetArray({"spec", "template", "spec", "volumes"}).size(), 2u);
  EXPECT_EQ(ds.GetString({"spec", "template", "spec", "imagePullSecrets", "0", "name"}), "mirror");
  EXPECT_EQ(ds.GetString({"spec", "template", "metadata", "labels", "rdmastack.io/simulate"}),
            "run");
  EXPECT_EQ(ds.GetBool({"spec", "template", "spec", "automountServiceAccountToken"}), false);
}

// Every host directory a client or uninstall pod can write is its own profile's: not the root
// that holds every profile's (a name the client is steered into there would land in another
// profile's place). The host's root is mounted read-only, for the probes.
TEST(ClientDaemonSetTest, EachPodMountsOnlyItsOwnProfilesDirectoryWritable) {
  const std::string own = "/var/lib/rdmastack/client/ml.kvcache-gpudirect";
  auto client = RenderClientDaemonSet(Sample(), Options());
  ASSERT_TRUE(client.ok());
  for (const k8s::JsonObject& ds : {*client, RenderUninstallDaemonSet(Sample(), Options())}) {
    std::map<std::string, std::string> host_paths;  // volume -> hostPath
    for (const auto& v : ds.GetArray({"spec", "template", "spec", "volumes"})) {
      if (auto path = v.GetString({"hostPath", "path"}))
        host_paths[v.GetString({"name"}).value_or("")] = *path;
    }
    EXPECT_EQ(host_paths.at("client-install"), own) << ds.Name();
    int writable_install_mounts = 0;
    for (const auto& c : ds.GetArray({"spec", "template", "spec", "containers"})) {
      for (const auto& m : c.GetArray({"volumeMounts"})) {
        const auto it = host_paths.find(m.GetString({"name"}).value_or(""));
        if (it == host_paths.end() || m.GetBool({"readOnly"}).value_or(false)) continue;
        // Writable host directories: the profile's own and the RDMA device files, nothing
        // above or beside the profile's directory.
        EXPECT_TRUE(it->second == own || it->second == "/dev/infiniband")
            << ds.Name() << " mounts " << it->second << " writable";
        if (it->second == own) {
          ++writable_install_mounts;
          EXPECT_EQ(m.GetString({"mountPath"}), "/var/lib/rdmastack-client/install");
        }
      }
    }
    EXPECT_EQ(writable_install_mounts, 1) << ds.Name();
    EXPECT_EQ(ds.Serialize().find(R"("path":"/var/lib/rdmastack/client")"), std::string::npos)
        << ds.Name() << " mounts the root of every profile's directory";
  }
}

TEST(ClientDaemonSetTest, WithoutKeysTheClientChecksTheHealthPath) {
  crd::ClientProfile profile = Sample("clientprofile-hostmem.yaml");
  ASSERT_FALSE(profile.spec.s3_user || profile.spec.credentials_secret);
  auto ds = RenderClientDaemonSet(profile, Options());
  ASSERT_TRUE(ds.ok());
  EXPECT_EQ(ArgAfter(Args(*ds), "--credentials-dir"), "<absent>");
  EXPECT_EQ(ds->Serialize().find(R"("name":"credentials")"), std::string::npos);
}

// The compatibility data's sha256 of the profile's libcuobjclient reaches the client, which then
// refuses other bytes; a version the data does not pin renders nothing.
TEST(ClientDaemonSetTest, PinnedClientLibraryBytesReachTheClient) {
  const crd::ClientProfile profile = Sample();
  ClientRenderOptions options = Options();
  EXPECT_EQ(ArgAfter(Args(*RenderClientDaemonSet(profile, options)), "--library-sha256"),
            "<absent>");
  std::vector<std::string> asked;
  options.client_library_sha256 = [&](std::string_view version) {
    asked.emplace_back(version);
    return version == "1.2.0.68" ? std::string(64, 'd') : "";
  };
  EXPECT_EQ(ArgAfter(Args(*RenderClientDaemonSet(profile, options)), "--library-sha256"),
            "libcuobjclient.so.1.2.0.68=" + std::string(64, 'd'));
  ASSERT_FALSE(asked.empty());
  for (const std::string& v : asked) EXPECT_EQ(v, profile.spec.client_library.version);
  crd::ClientProfile other = profile;
  other.spec.client_library.version = "1.2.0.69";
  EXPECT_EQ(ArgAfter(Args(*RenderClientDaemonSet(other, options)), "--library-sha256"), "<absent>");
}

// The admin's byte budget for library images reaches the client, and a client that refuses the
// image has its last line read back as the container's termination message.
TEST(ClientDaemonSetTest, LibraryBudgetAndRefusalMessage) {
  const crd::ClientProfile profile = Sample();
  ClientRenderOptions options = Options();
  auto plain = RenderClientDaemonSet(profile, options);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(ArgAfter(Args(*plain), "--max-library-file-size"), "<absent>");
  EXPECT_EQ(
      plain->GetString({"spec", "template", "spec", "containers", "0", "terminationMessagePolicy"}),
      std::optional<std::string>("FallbackToLogsOnError"));
  options.library_max_file_bytes = 1 << 20;
  options.library_max_bytes = 3 << 20;
  const std::vector<std::string> args = Args(*RenderClientDaemonSet(profile, options));
  EXPECT_EQ(ArgAfter(args, "--max-library-file-size"), "1048576");
  EXPECT_EQ(ArgAfter(args, "--max-library-size"), "3145728");
}

TEST(ClientDaemonSetTest, HostMemoryProfileWithCredentials) {
  crd::ClientProfile profile = Sample("clientprofile-hostmem.yaml");
  profile.spec.credentials_secret = crd::CredentialsSecretRef{"client-keys", "id", "key"};
  auto ds = RenderClientDaemonSet(profile, Options());
  ASSERT_TRUE(ds.ok());
  const std::vector<std::string> args = Args(*ds);
  EXPECT_EQ(ArgAfter(args, "--gid-index"), "0");
  EXPECT_EQ(ArgAfter(args, "--credentials-dir"), "/etc/rdmastack-client/credentials");
  EXPECT_EQ(std::find(args.begin(), args.end(), "--load-peermem"), args.end());
  // Without loadPeerMem too: the verbs probe opens /dev/infiniband.
  EXPECT_NE(std::find(args.begin(), args.end(), "--live-probes"), args.end());
  EXPECT_EQ(
      ds->GetBool({"spec", "template", "spec", "containers", "0", "securityContext", "privileged"}),
      true);
  bool found = false;
  for (const auto& v : ds->GetArray({"spec", "template", "spec", "volumes"})) {
    if (v.GetString({"name"}) != "credentials") continue;
    found = true;
    EXPECT_EQ(v.GetString({"secret", "secretName"}), "client-keys");
    EXPECT_EQ(v.GetString({"secret", "items", "0", "key"}), "id");
    EXPECT_EQ(v.GetString({"secret", "items", "0", "path"}), "accessKeyId");
    EXPECT_EQ(v.GetString({"secret", "items", "1", "key"}), "key");
    EXPECT_EQ(v.GetString({"secret", "items", "1", "path"}), "secretAccessKey");
  }
  EXPECT_TRUE(found);
}

TEST(ClientDaemonSetTest, HashFollowsTheSpec) {
  crd::ClientProfile profile = Sample();
  auto a = RenderClientDaemonSet(profile, Options());
  profile.spec.max_transfer_size = crd::IntOrString::Str("128Mi");
  auto b = RenderClientDaemonSet(profile, Options());
  auto c = RenderClientDaemonSet(Sample(), Options());
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_NE(a->Annotation(controllers::kAppliedHashAnnotation),
            b->Annotation(controllers::kAppliedHashAnnotation));
  EXPECT_EQ(a->Annotation(controllers::kAppliedHashAnnotation),
            c->Annotation(controllers::kAppliedHashAnnotation));
}

TEST(ClientDaemonSetTest, UnreadableTransferSizeIsAnError) {
  crd::ClientProfile profile = Sample();
  profile.spec.max_transfer_size = crd::IntOrString::Str("192MB");
  EXPECT_FALSE(RenderClientDaemonSet(profile, Options()).ok());
}

}  // namespace
}  // namespace rdmastack::clientprofile
