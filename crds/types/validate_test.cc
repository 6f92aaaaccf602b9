#include "crds/types/validate.h"

#include <gtest/gtest.h>

#include <functional>

#include "crds/types/json.h"
#include "crds/types/test_support.h"

namespace rdmastack::crd {
namespace {

template <typename T>
T Sample(const std::string& file) {
  auto docs = testing::LoadSourceYaml("crds/samples/" + file);
  StatusOr<T> parsed =
      ParseResource<T>(testing::YamlToJson(testing::FindKind(docs, std::string(KindOf<T>()))));
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok() ? *parsed : T{};
}

GatewayPool SeedPool() {
  return Sample<GatewayPool>("gatewaypool-kvcache.yaml");
}

bool HasProblem(const FieldProblems& problems, const std::string& path, const std::string& text) {
  for (const FieldProblem& p : problems) {
    if (p.path == path && p.message.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(ValidateTest, SamplesAreValid) {
  EXPECT_EQ(FormatProblems(Validate(SeedPool())), "");
  EXPECT_EQ(FormatProblems(Validate(Sample<GatewayPool>("gatewaypool-kvcache-2.0.yaml"))), "");
  EXPECT_EQ(FormatProblems(Validate(Sample<ClientProfile>("clientprofile-gpudirect.yaml"))), "");
  EXPECT_EQ(FormatProblems(Validate(Sample<ClientProfile>("clientprofile-hostmem.yaml"))), "");
  EXPECT_EQ(FormatProblems(Validate(Sample<RdmaNode>("rdmanode-gpu-node-0.yaml"))), "");
  EXPECT_EQ(FormatProblems(
                ValidateUpdate(SeedPool(), Sample<GatewayPool>("gatewaypool-kvcache-2.0.yaml"))),
            "");
}

struct PoolCase {
  const char* name;
  std::function<void(GatewayPool&)> mutate;
  const char* path;
  const char* text;
};

void PrintTo(const PoolCase& c, std::ostream* os) {
  *os << c.name;
}

class GatewayPoolProblemTest : public ::testing::TestWithParam<PoolCase> {};

TEST_P(GatewayPoolProblemTest, ReportsTheFieldAndWhy) {
  GatewayPool pool = SeedPool();
  GetParam().mutate(pool);
  FieldProblems problems = Validate(pool);
  EXPECT_TRUE(HasProblem(problems, GetParam().path, GetParam().text))
      << "want " << GetParam().path << ": " << GetParam().text
      << "\ngot: " << FormatProblems(problems);
}

INSTANTIATE_TEST_SUITE_P(
    Table, GatewayPoolProblemTest,
    ::testing::Values(
        PoolCase{"EmptySelector", [](GatewayPool& p) { p.spec.node_selector.clear(); },
                 "spec.nodeSelector", "at least one label"},
        PoolCase{"BadLabelKey", [](GatewayPool& p) { p.spec.node_selector["-bad/key"] = ""; },
                 "spec.nodeSelector[-bad/key]", "not a valid label key"},
        PoolCase{"BadLabelValue", [](GatewayPool& p) { p.spec.node_selector["role"] = "a b"; },
                 "spec.nodeSelector[role]", "not a valid label value"},
        PoolCase{"TolerationSecondsWithoutNoExecute",
                 [](GatewayPool& p) {
                   p.spec.tolerations.push_back({"k", {}, {}, TaintEffect::kNoSchedule, 5});
                 },
                 "spec.tolerations[0].tolerationSeconds", "NoExecute"},
        PoolCase{"TolerationExistsWithValue",
                 [](GatewayPool& p) {
                   p.spec.tolerations.push_back({"k", TolerationOperator::kExists, "v", {}, {}});
                 },
                 "spec.tolerations[0].value", "must be empty"},
        PoolCase{"UnpinnedLibraryImage",
                 [](GatewayPool& p) {
                   p.spec.server_library.image = "registry.local:5000/cuobj/libcuobjserver";
                 },
                 "spec.serverLibrary.image", "no tag or digest"},
        PoolCase{"LatestGatewayImage",
                 [](GatewayPool& p) { p.spec.gateway.image = "vgwrdma:latest"; },
                 "spec.gateway.image", ":latest"},
        PoolCase{"ThreePartLibrary",
                 [](GatewayPool& p) { p.spec.server_library.version = "1.2.0"; },
                 "spec.serverLibrary.version", "four-part"},
        PoolCase{"BadGatewayVersion", [](GatewayPool& p) { p.spec.gateway.version = "latest"; },
                 "spec.gateway.version", "build version"},
        PoolCase{"BadSecretName",
                 [](GatewayPool& p) { p.spec.s3.credentials_secret.name = "Root_Keys"; },
                 "spec.s3.credentialsSecret.name", "not a valid Secret name"},
        PoolCase{"PortOutOfRange", [](GatewayPool& p) { p.spec.s3.port = 70000; }, "spec.s3.port",
                 "1..65535"},
        PoolCase{"ExplicitPortsEqual", [](GatewayPool& p) { p.spec.rdma.port = 7071; },
                 "spec.rdma.port", "equals the effective S3 port"},
        PoolCase{"DefaultedPortsCollide",  // s3 defaults to 7071 for 1.x; rdma set to the same
                 [](GatewayPool& p) {
                   p.spec.s3.port.reset();
                   p.spec.rdma.port = 7071;
                 },
                 "spec.rdma.port", "equals the effective S3 port"},
        PoolCase{"BothInterfaceAndCidr", [](GatewayPool& p) { p.spec.rdma.cidr = "100.64.0.0/16"; },
                 "spec.rdma", "exactly one"},
        PoolCase{"BadCidr",
                 [](GatewayPool& p) {
                   p.spec.rdma.interface.reset();
                   p.spec.rdma.cidr = "100.64.0.0/33";
                 },
                 "spec.rdma.cidr", "IPv4 CIDR"},
        PoolCase{"BadInterface", [](GatewayPool& p) { p.spec.rdma.interface = "bond0 extra"; },
                 "spec.rdma.interface", "not a network interface name"},
        PoolCase{
            "HugeBuffer",
            [](GatewayPool& p) { p.spec.rdma.buffer_pool.buffer_size = IntOrString::Str("32Gi"); },
            "spec.rdma.bufferPool.bufferSize", "from 1Mi to 16Gi"},
        PoolCase{
            "GarbageBuffer",
            [](GatewayPool& p) { p.spec.rdma.buffer_pool.buffer_size = IntOrString::Str("big"); },
            "spec.rdma.bufferPool.bufferSize", "quantity \"big\""},
        PoolCase{"NoBuffers", [](GatewayPool& p) { p.spec.rdma.buffer_pool.buffer_count = 0; },
                 "spec.rdma.bufferPool.bufferCount", "1..64"},
        PoolCase{"UnknownPlaceholder",
                 [](GatewayPool& p) {
                   p.spec.backend.posix.path_template = "/lustre/agent/vol0/{host}";
                 },
                 "spec.backend.posix.pathTemplate", "unknown placeholder {host}"},
        PoolCase{"PathOutsideHostPath",
                 [](GatewayPool& p) {
                   p.spec.backend.posix.path_template = "/lustre/agent/vol1/{nodeName}";
                 },
                 "spec.backend.posix.pathTemplate", "outside hostPath /lustre/agent/vol0"},
        PoolCase{"DotDot",
                 [](GatewayPool& p) {
                   p.spec.backend.posix.path_template = "/lustre/agent/vol0/../etc";
                 },
                 "spec.backend.posix.pathTemplate", "'..'"},
        PoolCase{"DotSegment",
                 [](GatewayPool& p) {
                   p.spec.backend.posix.path_template = "/lustre/agent/vol0/./{nodeName}";
                 },
                 "spec.backend.posix.pathTemplate", "'//' or '.'"},
        PoolCase{"DoubleSlash",
                 [](GatewayPool& p) {
                   p.spec.backend.posix.path_template = "/lustre/agent/vol0//{nodeName}";
                 },
                 "spec.backend.posix.pathTemplate", "'//' or '.'"},
        PoolCase{"SidecarWithoutTemplate",
                 [](GatewayPool& p) { p.spec.backend.posix.metadata = BackendMetadata::kSidecar; },
                 "spec.backend.posix.sidecarPathTemplate", "required with metadata Sidecar"},
        PoolCase{"TemplateWithoutSidecar",
                 [](GatewayPool& p) {
                   p.spec.backend.posix.sidecar_path_template = "/lustre/agent/vol0/m";
                 },
                 "spec.backend.posix.sidecarPathTemplate", "only for metadata Sidecar"},
        PoolCase{"SidecarOutsideHostPath",
                 [](GatewayPool& p) {
                   p.spec.backend.posix.metadata = BackendMetadata::kSidecar;
                   p.spec.backend.posix.sidecar_path_template = "/var/meta-{nodeName}";
                 },
                 "spec.backend.posix.sidecarPathTemplate", "outside hostPath"},
        PoolCase{"SidecarInsideRoot",
                 [](GatewayPool& p) {
                   p.spec.backend.posix.metadata = BackendMetadata::kSidecar;
                   p.spec.backend.posix.sidecar_path_template =
                       p.spec.backend.posix.path_template + "/.meta";
                 },
                 "spec.backend.posix.sidecarPathTemplate", "overlaps the gateway root"},
        PoolCase{"SidecarDotDot",
                 [](GatewayPool& p) {
                   p.spec.backend.posix.metadata = BackendMetadata::kSidecar;
                   p.spec.backend.posix.sidecar_path_template = "/lustre/agent/vol0/../m";
                 },
                 "spec.backend.posix.sidecarPathTemplate", "'..'"},
        PoolCase{"HostPathDotDot",
                 [](GatewayPool& p) { p.spec.backend.posix.host_path = "/lustre/agent/x/../vol0"; },
                 "spec.backend.posix.hostPath", "'..'"},
        PoolCase{"HostPathDoubleSlash",
                 [](GatewayPool& p) { p.spec.backend.posix.host_path = "/lustre//agent/vol0"; },
                 "spec.backend.posix.hostPath", "'//'"},
        PoolCase{"RelativeHostPath",
                 [](GatewayPool& p) { p.spec.backend.posix.host_path = "lustre"; },
                 "spec.backend.posix.hostPath", "absolute"},
        PoolCase{"InPlaceWithZeroUnavailable",
                 [](GatewayPool& p) {
                   p.spec.upgrade.strategy = UpgradeStrategy::kInPlace;
                   p.spec.upgrade.max_unavailable = IntOrString::Str("0%");
                 },
                 "spec.upgrade.maxUnavailable", "could never replace"},
        PoolCase{"BadPercent",
                 [](GatewayPool& p) { p.spec.upgrade.max_unavailable = IntOrString::Str("150%"); },
                 "spec.upgrade.maxUnavailable", "percentage"},
        PoolCase{"ZeroParallel", [](GatewayPool& p) { p.spec.upgrade.max_parallel = 0; },
                 "spec.upgrade.maxParallel", "at least 1"},
        PoolCase{"ShortTimeout", [](GatewayPool& p) { p.spec.upgrade.validation_timeout = "5s"; },
                 "spec.upgrade.validationTimeout", "10s to 24h"},
        PoolCase{"UnparsableTimeout",
                 [](GatewayPool& p) { p.spec.upgrade.validation_timeout = "ten minutes"; },
                 "spec.upgrade.validationTimeout", "duration"},
        PoolCase{"LongDrain", [](GatewayPool& p) { p.spec.upgrade.drain_seconds = 7200; },
                 "spec.upgrade.drainSeconds", "0..3600"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(ValidateTest, ReportsEveryProblemAtOnce) {
  GatewayPool pool = SeedPool();
  pool.spec.s3.port = 0;
  pool.spec.upgrade.max_parallel = 0;
  pool.spec.backend.posix.path_template = "relative";
  FieldProblems problems = Validate(pool);
  EXPECT_EQ(problems.size(), 3u) << FormatProblems(problems);
  EXPECT_NE(FormatProblems(problems).find("spec.s3.port: 0 is not a port"), std::string::npos);
}

TEST(ValidateTest, AcceptsLongValidationTimeoutsAndPercentages) {
  GatewayPool pool = SeedPool();
  pool.spec.upgrade.validation_timeout = "1h30m";
  pool.spec.upgrade.max_unavailable = IntOrString::Str("25%");
  pool.spec.upgrade.strategy = UpgradeStrategy::kInPlace;
  pool.spec.rdma.interface.reset();
  pool.spec.rdma.cidr = "100.64.0.0/16";
  pool.spec.server_library.image = "registry.local/lib@sha256:0123abcd";
  EXPECT_EQ(FormatProblems(Validate(pool)), "");
}

TEST(ValidateUpdateTest, MajorMovesOneStepEitherWay) {
  GatewayPool v1 = SeedPool();
  GatewayPool v2 = Sample<GatewayPool>("gatewaypool-kvcache-2.0.yaml");
  EXPECT_EQ(FormatProblems(ValidateUpdate(v2, v1)), "");  // rollback 2 -> 1
  GatewayPool v3 = v2;
  v3.spec.server_library.version = "3.0.0.1";
  v3.spec.s3.port.reset();
  v3.spec.rdma.port.reset();
  EXPECT_EQ(FormatProblems(ValidateUpdate(v2, v3)), "");
  FieldProblems jump = ValidateUpdate(v1, v3);
  EXPECT_TRUE(
      HasProblem(jump, "spec.serverLibrary.version", "1.2.0.68 -> 3.0.0.1 moves the library major"))
      << FormatProblems(jump);
  EXPECT_TRUE(
      HasProblem(ValidateUpdate(v3, v1), "spec.serverLibrary.version", "more than one step"));
}

TEST(ValidateUpdateTest, SideBySideMajorMoveNeedsNewPorts) {
  GatewayPool v1 = SeedPool();
  GatewayPool v2 = Sample<GatewayPool>("gatewaypool-kvcache-2.0.yaml");
  v2.spec.s3.port = 7071;  // same port as the 1.x track that keeps running beside it
  EXPECT_TRUE(HasProblem(ValidateUpdate(v1, v2), "spec.serverLibrary.version", "must both change"));
  v2.spec.upgrade.strategy = UpgradeStrategy::kInPlace;  // one pod at a time: same port is fine
  EXPECT_EQ(FormatProblems(ValidateUpdate(v1, v2)), "");
  GatewayPool defaulted = v1;  // unset ports follow the major: 7071/19100 -> 7072/19101
  defaulted.spec.s3.port.reset();
  defaulted.spec.rdma.port.reset();
  GatewayPool moved = defaulted;
  moved.spec.server_library.version = "2.0.0.109";
  EXPECT_EQ(FormatProblems(ValidateUpdate(defaulted, moved)), "");
}

TEST(ValidateUpdateTest, BackendIsImmutable) {
  GatewayPool old_pool = SeedPool();
  GatewayPool updated = old_pool;
  updated.spec.backend.posix.path_template = "/lustre/agent/vol0/other-{nodeName}";
  EXPECT_TRUE(HasProblem(ValidateUpdate(old_pool, updated), "spec.backend", "immutable"));
}

TEST(ValidateTest, ASidecarBesideTheRootInsideTheHostPathIsValid) {
  GatewayPool pool = SeedPool();
  pool.spec.backend.posix.metadata = BackendMetadata::kSidecar;
  pool.spec.backend.posix.sidecar_path_template = "/lustre/agent/vol0/kvcache-meta-{nodeName}";
  EXPECT_EQ(FormatProblems(Validate(pool)), "");
  // Beside the root but named after it: versitygw would refuse it as inside.
  pool.spec.backend.posix.sidecar_path_template = pool.spec.backend.posix.path_template + ".meta";
  EXPECT_NE(FormatProblems(Validate(pool)).find("begins with its path"), std::string::npos);
  pool.spec.backend.posix.metadata = BackendMetadata::kNone;
  pool.spec.backend.posix.sidecar_path_template.reset();
  EXPECT_EQ(FormatProblems(Validate(pool)), "");
}

// The metadata mode names where existing objects' metadata is; requireMount names nothing.
TEST(ValidateUpdateTest, MetadataIsImmutableRequireMountIsNot) {
  GatewayPool old_pool = SeedPool();
  GatewayPool updated = old_pool;
  updated.spec.backend.posix.metadata = BackendMetadata::kNone;
  EXPECT_TRUE(HasProblem(ValidateUpdate(old_pool, updated), "spec.backend", "immutable"));
  updated = old_pool;
  updated.spec.backend.posix.require_mount = !old_pool.spec.backend.posix.require_mount;
  EXPECT_EQ(FormatProblems(ValidateUpdate(old_pool, updated)), "");
}

TEST(ValidateUpdateTest, SelectorFrozenOnlyWhileServing) {
  GatewayPool old_pool = SeedPool();
  GatewayPool updated = old_pool;
  updated.spec.node_selector = {{"node-role.rdmastack.io/storage-b", ""}};
  EXPECT_EQ(FormatProblems(ValidateUpdate(old_pool, updated)), "");
  old_pool.status.emplace().node_counts.emplace().ready = 2;
  EXPECT_TRUE(HasProblem(ValidateUpdate(old_pool, updated), "spec.nodeSelector", "serving"));
}

TEST(ValidateClientProfileTest, SemanticProblems) {
  ClientProfile p = Sample<ClientProfile>("clientprofile-hostmem.yaml");
  p.spec.memory_registration = MemoryRegistration::kPeerMem;
  p.spec.max_transfer_size = IntOrString::Str("5Gi");
  p.spec.gid_index = IntOrString::Int(256);
  p.spec.gateway_pool_ref.name = "";
  p.spec.client_library.version = "1.2";
  p.spec.client_library.image = "libcuobjclient";
  FieldProblems problems = Validate(p);
  EXPECT_TRUE(HasProblem(problems, "spec.memoryRegistration", "PeerMem registers GPU memory"));
  EXPECT_TRUE(HasProblem(problems, "spec.maxTransferSize", "at most 4Gi"));
  EXPECT_TRUE(HasProblem(problems, "spec.gidIndex", "0..255"));
  EXPECT_TRUE(HasProblem(problems, "spec.gatewayPoolRef.name", "GatewayPool"));
  EXPECT_TRUE(HasProblem(problems, "spec.clientLibrary.version", "four-part"));
  EXPECT_TRUE(HasProblem(problems, "spec.clientLibrary.image", "no tag or digest"));
  EXPECT_EQ(problems.size(), 6u) << FormatProblems(problems);
}

TEST(ValidateClientProfileTest, S3UserBucketsAndItsExclusionOfCredentialsSecret) {
  ClientProfile p = Sample<ClientProfile>("clientprofile-gpudirect.yaml");
  ASSERT_TRUE(p.spec.s3_user.has_value());
  p.spec.s3_user->buckets = {"ok-bucket", "Bad_Bucket", "ok-bucket", "-x-"};
  p.spec.s3_user->previous_key_grace_seconds = -1;
  p.spec.credentials_secret = CredentialsSecretRef{"client-keys"};
  FieldProblems problems = Validate(p);
  EXPECT_TRUE(HasProblem(problems, "spec.s3User", "exclude each other"));
  EXPECT_TRUE(HasProblem(problems, "spec.s3User.buckets[1]", "not a bucket name"));
  EXPECT_TRUE(HasProblem(problems, "spec.s3User.buckets[2]", "listed twice"));
  EXPECT_TRUE(HasProblem(problems, "spec.s3User.buckets[3]", "not a bucket name"));
  EXPECT_TRUE(HasProblem(problems, "spec.s3User.previousKeyGraceSeconds", "0..86400"));
  EXPECT_EQ(problems.size(), 5u) << FormatProblems(problems);
  p.spec.s3_user->buckets.clear();
  EXPECT_TRUE(HasProblem(Validate(p), "spec.s3User.buckets", "at least one"));
}

TEST(ValidateClientProfileTest, TransferSizeBounds) {
  ClientProfile p = Sample<ClientProfile>("clientprofile-gpudirect.yaml");
  p.spec.max_transfer_size = IntOrString::Str("4Gi");
  EXPECT_EQ(FormatProblems(Validate(p)), "");
  p.spec.max_transfer_size = IntOrString::Int(0);
  EXPECT_TRUE(HasProblem(Validate(p), "spec.maxTransferSize", "more than 0"));
  p.spec.gid_index = IntOrString::Str("auto");
  EXPECT_TRUE(HasProblem(Validate(p), "spec.gidIndex", "Auto"));
}

TEST(ValidateClientProfileTest, WorkloadNamesExactlyOneDeviceMode) {
  ClientProfile p = Sample<ClientProfile>("clientprofile-gpudirect.yaml");
  ASSERT_TRUE(p.spec.workload && p.spec.workload->shared_device_plugin);
  EXPECT_EQ(FormatProblems(Validate(p)), "");
  p.spec.workload->host_device = HostDeviceMode{};
  EXPECT_TRUE(HasProblem(Validate(p), "spec.workload", "exactly one way"));
  p.spec.workload->shared_device_plugin.reset();
  EXPECT_EQ(FormatProblems(Validate(p)), "");
  p.spec.workload->host_device.reset();
  EXPECT_TRUE(HasProblem(Validate(p), "spec.workload", "exactly one way"));
  p.spec.workload->sriov = SriovMode{"nvidia.com/cx6_vf", ""};
  EXPECT_TRUE(HasProblem(Validate(p), "spec.workload.sriov.networkAttachment", "required"));
  p.spec.workload->config_mount_path = "relative";
  EXPECT_TRUE(HasProblem(Validate(p), "spec.workload.configMountPath", "absolute"));
}

TEST(ValidateRdmaNodeTest, ReportConsistency) {
  RdmaNode node = Sample<RdmaNode>("rdmanode-gpu-node-0.yaml");
  node.spec.node_name = "other";
  RdmaNodeStatus& s = *node.status;
  s.devices.push_back(s.devices[0]);
  s.devices[0].ports.push_back(s.devices[0].ports[0]);
  s.devices[0].ports[0].gids.push_back(s.devices[0].ports[0].gids[0]);
  s.netdevs[0].rdma_device = "mlx5_9";
  s.gpus[0].nearest_nic = "mlx5_9";
  s.gpus[0].bar1_free_bytes = *s.gpus[0].bar1_total_bytes + 1;
  s.gpus[0].path_type = "FAR";
  s.checks.push_back(s.checks[0]);
  s.verdicts->gpu_direct->via.reset();
  s.verdicts->host_memory = Verdict{Capability::kNo, std::nullopt, std::nullopt};
  FieldProblems problems = Validate(node);
  for (const auto& [path, text] : std::vector<std::pair<std::string, std::string>>{
           {"spec.nodeName", "must equal metadata.name"},
           {"status.devices[1].name", "duplicate entry \"mlx5_0\""},
           {"status.devices[0].ports[1].number", "duplicate port number"},
           {"status.devices[0].ports[0].gids[1].index", "duplicate GID index"},
           {"status.netdevs[0].rdmaDevice", "not among status.devices"},
           {"status.gpus[0].nearestNic", "not among status.devices"},
           {"status.gpus[0].bar1FreeBytes", "exceeds"},
           {"status.gpus[0].pathType", "PIX, PXB"},
           {"status.checks[3].id", "duplicate"},
           {"status.verdicts.gpuDirect.via", "PeerMem or DMABuf"},
           {"status.verdicts.hostMemory.reason", "must say why"}}) {
    EXPECT_TRUE(HasProblem(problems, path, text))
        << path << ": " << text << "\ngot: " << FormatProblems(problems);
  }
}

}  // namespace
}  // namespace rdmastack::crd

namespace rdmastack::crd {
namespace {

// Syntax edges of the hand-written matchers, through the public validator.
TEST(ValidateSyntaxTest, AcceptsAndRejectsAtTheEdges) {
  struct Edge {
    std::function<void(GatewayPool&)> mutate;
    const char* path;  // empty: must be valid
  };
  const std::vector<Edge> edges = {
      {[](GatewayPool& p) { p.spec.gateway.version = "v1.8.0"; }, ""},
      {[](GatewayPool& p) { p.spec.gateway.version = "1.8.0+build.7"; }, ""},
      {[](GatewayPool& p) { p.spec.gateway.version = "v1.8"; }, "spec.gateway.version"},
      {[](GatewayPool& p) { p.spec.gateway.version = "1.8.0-"; }, "spec.gateway.version"},
      {[](GatewayPool& p) { p.spec.gateway.version = "1..0"; }, "spec.gateway.version"},
      {[](GatewayPool& p) {
         p.spec.node_selector = {{"Example.com/role", "x"}};
       },
       "spec.nodeSelector[Example.com/role]"},
      {[](GatewayPool& p) {
         p.spec.node_selector = {{"example.com/", "x"}};
       },
       "spec.nodeSelector[example.com/]"},
      {[](GatewayPool& p) {
         p.spec.node_selector = {{"role", "-x"}};
       },
       "spec.nodeSelector[role]"},
      {[](GatewayPool& p) {
         p.spec.node_selector = {{"a.b/c_d.e", "x.y-z"}};
       },
       ""},
      {[](GatewayPool& p) { p.spec.s3.credentials_secret.name = "a..b"; },
       "spec.s3.credentialsSecret.name"},
      {[](GatewayPool& p) { p.spec.rdma.interface = "ib0.8001"; }, ""},
      {[](GatewayPool& p) { p.spec.rdma.interface = "averyveryverylong0"; }, "spec.rdma.interface"},
      {[](GatewayPool& p) {
         p.spec.rdma.interface.reset();
         p.spec.rdma.cidr = "100.64.0/16";
       },
       "spec.rdma.cidr"},
      {[](GatewayPool& p) {
         p.spec.rdma.interface.reset();
         p.spec.rdma.cidr = "256.1.1.1/8";
       },
       "spec.rdma.cidr"},
      {[](GatewayPool& p) { p.spec.upgrade.validation_timeout = "10"; },
       "spec.upgrade.validationTimeout"},
      {[](GatewayPool& p) { p.spec.upgrade.validation_timeout = "m"; },
       "spec.upgrade.validationTimeout"},
      {[](GatewayPool& p) { p.spec.upgrade.validation_timeout = "24h1s"; },
       "spec.upgrade.validationTimeout"},
      {[](GatewayPool& p) { p.spec.upgrade.validation_timeout = "10s"; }, ""},
  };
  for (size_t i = 0; i < edges.size(); ++i) {
    GatewayPool pool = SeedPool();
    edges[i].mutate(pool);
    FieldProblems problems = Validate(pool);
    if (std::string(edges[i].path).empty()) {
      EXPECT_EQ(FormatProblems(problems), "") << "edge " << i;
    } else {
      EXPECT_TRUE(HasProblem(problems, edges[i].path, ""))
          << "edge " << i << ": " << FormatProblems(problems);
    }
  }
}

}  // namespace
}  // namespace rdmastack::crd
