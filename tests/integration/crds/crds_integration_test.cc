// The CRDs against a real kube-apiserver: samples are accepted, bad objects and unsafe updates
// are rejected with the messages the schema promises, and kubectl shows the printer columns and
// the field descriptions.

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <yaml-cpp/yaml.h>

#include <chrono>
#include <functional>
#include <thread>

#include "crds/schema/crd_schemas.h"
#include "crds/schema/schema_fit.h"
#include "crds/types/test_support.h"
#include "tests/harness/cluster_env.h"

namespace rdmastack::crd {
namespace {

using ::rdmastack::testing::ClusterEnv;
using ::rdmastack::testing::CommandResult;
using ::rdmastack::testing::SourcePath;

const char* const kCrdFiles[] = {"crds/gatewaypools.yaml", "crds/clientprofiles.yaml",
                                 "crds/rdmanodes.yaml"};

std::string Describe(const CommandResult& r) {
  return "exit " + std::to_string(r.exit_code) + "\nstdout: " + r.out + "\nstderr: " + r.err;
}

YAML::Node LoadSample(const std::string& file, const std::string& kind) {
  // A deep copy, so that a test's edits never leak into another.
  YAML::Node doc = testing::FindKind(testing::LoadSourceYaml("crds/samples/" + file), kind);
  return YAML::Clone(doc);
}

// One namespace for the suite; the CRDs of this tree are (re)applied first.
class CrdIntegrationTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const ClusterEnv* env = ::rdmastack::testing::GetClusterEnv();
    if (env == nullptr) return;
    std::vector<std::string> apply{"apply", "--server-side", "--force-conflicts",
                                   "--field-manager=rdmastack-crds-test"};
    for (const char* f : kCrdFiles) {
      apply.push_back("-f");
      apply.push_back(SourcePath(f));
    }
    CommandResult r = env->Kubectl(apply);
    ASSERT_EQ(r.exit_code, 0) << Describe(r);
    r = env->Kubectl({"wait", "--for=condition=Established", "--timeout=60s",
                      "crd/gatewaypools.rdmastack.io", "crd/clientprofiles.rdmastack.io",
                      "crd/rdmanodes.rdmastack.io"});
    ASSERT_EQ(r.exit_code, 0) << Describe(r);
    namespace_ = ::rdmastack::testing::UniqueName("crds");
    r = env->Kubectl({"create", "namespace", namespace_});
    ASSERT_EQ(r.exit_code, 0) << Describe(r);
  }

  static void TearDownTestSuite() {
    const ClusterEnv* env = ::rdmastack::testing::GetClusterEnv();
    if (env == nullptr || namespace_.empty()) return;
    env->Kubectl({"delete", "namespace", namespace_, "--wait=false"});
  }

  // kubectl <verb> -f - with the object as JSON.
  static CommandResult Send(const ClusterEnv& env, const std::vector<std::string>& verb,
                            const YAML::Node& object) {
    std::vector<std::string> args = verb;
    args.insert(args.end(), {"-n", namespace_, "-f", "-"});
    return env.Kubectl(args, testing::YamlToJson(object));
  }

  static std::string namespace_;
};

std::string CrdIntegrationTest::namespace_;

TEST_F(CrdIntegrationTest, EverySampleIsAcceptedByTheServer) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  for (const char* sample :
       {"gatewaypool-kvcache.yaml", "gatewaypool-kvcache-2.0.yaml", "gatewaypool-two-rails.yaml",
        "clientprofile-gpudirect.yaml", "clientprofile-hostmem.yaml", "rdmanode-gpu-node-0.yaml"}) {
    CommandResult r = env->Kubectl({"apply", "--dry-run=server", "-n", namespace_, "-f",
                                    SourcePath(std::string("crds/samples/") + sample)});
    EXPECT_EQ(r.exit_code, 0) << sample << "\n" << Describe(r);
  }
}

struct InvalidCase {
  const char* name;
  const char* file;
  const char* kind;
  std::function<void(YAML::Node&)> mutate;
  const char* message;  // expected in the apiserver's answer
};

void PrintTo(const InvalidCase& c, std::ostream* os) {
  *os << c.name;
}

class InvalidObjectTest : public CrdIntegrationTest,
                          public ::testing::WithParamInterface<InvalidCase> {};

TEST_P(InvalidObjectTest, RejectedWithTheExpectedMessage) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  YAML::Node object = LoadSample(GetParam().file, GetParam().kind);
  if (std::string(GetParam().kind) == "RdmaNode") {
    object["metadata"]["name"] = ::rdmastack::testing::UniqueName("rnode");
  }
  GetParam().mutate(object);
  CommandResult r = Send(*env, {"create", "--dry-run=server"}, object);
  EXPECT_NE(r.exit_code, 0) << "accepted: " << testing::YamlToJson(object);
  EXPECT_NE(r.err.find(GetParam().message), std::string::npos)
      << "want: " << GetParam().message << "\n"
      << Describe(r);
}

const char* const kPool = "gatewaypool-kvcache.yaml";
const char* const kGpu = "clientprofile-gpudirect.yaml";
const char* const kNode = "rdmanode-gpu-node-0.yaml";

INSTANTIATE_TEST_SUITE_P(Table, InvalidObjectTest,
                         ::
                             testing::
                                 Values(InvalidCase{"S3PortTooHigh", kPool, "GatewayPool",
                                                    [](YAML::Node& o) {
                                                      o["spec"]["s3"]["port"] = 70000;
                                                    },
                                                    "s3.port must be a TCP port in 1..65535"},
                                        InvalidCase{
                                            "S3PortZero", kPool, "GatewayPool",
                                            [](YAML::Node& o) { o["spec"]["s3"]["port"] = 0; },
                                            "s3.port must be a TCP port in 1..65535"},
                                        InvalidCase{"RdmaPortTooHigh", kPool, "GatewayPool",
                                                    [](YAML::Node& o) {
                                                      o["spec"]["rdma"]["port"] = 65536;
                                                    },
                                                    "rdma.port must be a port in 1..65535"},
                                        InvalidCase{
                                            "S3EqualsRdmaPort", kPool, "GatewayPool",
                                            [](YAML::Node& o) { o["spec"]["rdma"]["port"] = 7071; },
                                            "s3.port and rdma.port must differ"},
                                        InvalidCase{"DefaultS3EqualsRdmaPort", kPool, "GatewayPool",
                                                    [](YAML::Node& o) {
                                                      o["spec"]["s3"].remove(
                                                          "port");  // defaults to 7071 for 1.x
                                                      o["spec"]["rdma"]["port"] = 7071;
                                                    },
                                                    "s3.port and rdma.port must differ"},
                                        InvalidCase{
                                            "ThreePartLibraryVersion", kPool, "GatewayPool",
                                            [](YAML::Node& o) {
                                              o["spec"]["serverLibrary"]["version"] = "1.2.0";
                                            },
                                            "spec.serverLibrary.version in body should match"},
                                        InvalidCase{"GatewayVersionNotABuild", kPool, "GatewayPool",
                                                    [](YAML::Node& o) {
                                                      o["spec"]["gateway"]["version"] = "latest";
                                                    },
                                                    "spec.gateway.version in body should match"},
                                        InvalidCase{"InterfaceAndCidr", kPool, "GatewayPool",
                                                    [](YAML::Node& o) {
                                                      o["spec"]["rdma"]["cidr"] = "100.64.0.0/16";
                                                    },
                                                    "set exactly one of rdma.interface"},
                                        InvalidCase{"RailsAndInterface", kPool, "GatewayPool",
                                                    [](YAML::Node& o) {
                                                      YAML::Node rail;
                                                      rail["name"] = "rail-a";
                                                      rail["interface"] = "ib0";
                                                      o["spec"]["rdma"]["rails"].push_back(rail);
                                                    },
                                                    "or rdma.rails instead of both"},
                                        InvalidCase{"RailWithInterfaceAndCidr", kPool,
                                                    "GatewayPool",
                                                    [](YAML::Node& o) {
                                                      o["spec"]["rdma"].remove("interface");
                                                      YAML::Node rail;
                                                      rail["name"] = "rail-a";
                                                      rail["interface"] = "ib0";
                                                      rail["cidr"] = "10.11.0.0/16";
                                                      o["spec"]["rdma"]["rails"].push_back(rail);
                                                    },
                                                    "set exactly one of interface or cidr in each "
                                                    "rail"},
                                        InvalidCase{"TwoRailsOnOneInterface", kPool, "GatewayPool",
                                                    [](YAML::Node& o) {
                                                      o["spec"]["rdma"].remove("interface");
                                                      for (const char* n : {"rail-a", "rail-b"}) {
                                                        YAML::Node rail;
                                                        rail["name"] = n;
                                                        rail["interface"] = "ib0";
                                                        o["spec"]["rdma"]["rails"].push_back(rail);
                                                      }
                                                    },
                                                    "two rails pick the same interface or cidr"},
                                        InvalidCase{"NeitherInterfaceNorCidr", kPool, "GatewayPool",
                                                    [](YAML::Node& o) {
                                                      o["spec"]["rdma"].remove("interface");
                                                    },
                                                    "set exactly one of rdma.interface"},
                                        InvalidCase{"BadCidr", kPool, "GatewayPool",
                                                    [](YAML::Node& o) {
                                                      o["spec"]["rdma"].remove("interface");
                                                      o["spec"]["rdma"]["cidr"] = "100.64.0.0/40";
                                                    },
                                                    "rdma.cidr must be an IPv4 CIDR"},
                                        InvalidCase{
                                            "BufferTooLarge", kPool, "GatewayPool",
                                            [](YAML::Node& o) {
                                              o["spec"]["rdma"]["bufferPool"]["bufferSize"] =
                                                  "32Gi";
                                            },
                                            "bufferSize must be a byte quantity from 1Mi to 16Gi"},
                                        InvalidCase{
                                            "NoBuffers", kPool, "GatewayPool",
                                            [](YAML::Node& o) {
                                              o["spec"]["rdma"]["bufferPool"]["bufferCount"] = 0;
                                            },
                                            "rdma.bufferPool.bufferCount must be 1..64"},
                                        InvalidCase{"MaxParallelZero", kPool, "GatewayPool",
                                                    [](YAML::Node& o) {
                                                      o["spec"]["upgrade"]["maxParallel"] = 0;
                                                    },
                                                    "upgrade.maxParallel must be at least 1"},
                                        InvalidCase{
                                            "MaxUnavailableOver100Percent", kPool, "GatewayPool",
                                            [](YAML::Node& o) {
                                              o["spec"]["upgrade"]["maxUnavailable"] = "150%";
                                            },
                                            "upgrade.maxUnavailable must be a non-negative count "
                                            "or a percentage"},
                                        InvalidCase{"MaxUnavailableNegative", kPool, "GatewayPool",
                                                    [](YAML::Node& o) {
                                                      o["spec"]["upgrade"]["maxUnavailable"] = -1;
                                                    },
                                                    "upgrade.maxUnavailable must be a non-negative "
                                                    "count or a percentage"},
                                        InvalidCase{
                                            "ValidationTimeoutTooShort", kPool, "GatewayPool",
                                            [](YAML::Node& o) {
                                              o["spec"]["upgrade"]["validationTimeout"] = "5s";
                                            },
                                            "upgrade.validationTimeout must be a duration from 10s "
                                            "to 24h"},
                                        InvalidCase{
                                            "DrainTooLong", kPool, "GatewayPool",
                                            [](YAML::Node& o) {
                                              o["spec"]["upgrade"]["drainSeconds"] = 7200;
                                            },
                                            "upgrade.drainSeconds must be 0..3600"},
                                        InvalidCase{"UnknownStrategy", kPool, "GatewayPool",
                                                    [](YAML::Node& o) {
                                                      o["spec"]["upgrade"]["strategy"] = "Rolling";
                                                    },
                                                    "Unsupported value: \"Rolling\""},
                                        InvalidCase{
                                            "PathOutsideHostPath", kPool, "GatewayPool",
                                            [](YAML::Node& o) {
                                              o["spec"]["backend"]["posix"]["pathTemplate"] =
                                                  "/scratch/{nodeName}";
                                            },
                                            "pathTemplate must lie inside backend.posix.hostPath"},
                                        InvalidCase{
                                            "UnknownPlaceholder", kPool, "GatewayPool",
                                            [](YAML::Node& o) {
                                              o["spec"]["backend"]["posix"]["pathTemplate"] =
                                                  "/lustre/agent/vol0/{host}";
                                            },
                                            "may only use the placeholders {nodeName}, {poolName} "
                                            "and {namespace}"},
                                        InvalidCase{
                                            "DotDotInPath", kPool, "GatewayPool",
                                            [](YAML::Node& o) {
                                              o["spec"]["backend"]["posix"]["pathTemplate"] =
                                                  "/lustre/agent/vol0/../etc";
                                            },
                                            "pathTemplate must not contain '..' segments"},
                                        InvalidCase{
                                            "DoubleSlashInPath", kPool, "GatewayPool",
                                            [](YAML::Node& o) {
                                              o["spec"]["backend"]["posix"]["pathTemplate"] =
                                                  "/lustre/agent/vol0//{nodeName}";
                                            },
                                            "pathTemplate must not contain '//' or '.' segments"},
                                        InvalidCase{
                                            "SidecarWithoutItsTemplate", kPool, "GatewayPool",
                                            [](YAML::Node& o) {
                                              o["spec"]["backend"]["posix"]["metadata"] = "Sidecar";
                                            },
                                            "sidecarPathTemplate goes with metadata Sidecar"},
                                        InvalidCase{
                                            "SidecarTemplateWithXattr", kPool, "GatewayPool",
                                            [](YAML::Node& o) {
                                              o["spec"]["backend"]["posix"]["sidecarPathTemplate"] =
                                                  "/lustre/agent/vol0/meta";
                                            },
                                            "sidecarPathTemplate goes with metadata Sidecar"},
                                        InvalidCase{
                                            "SidecarOutsideHostPath", kPool, "GatewayPool",
                                            [](YAML::Node& o) {
                                              o["spec"]["backend"]["posix"]["metadata"] = "Sidecar";
                                              o["spec"]["backend"]["posix"]["sidecarPathTemplate"] =
                                                  "/var/meta-{nodeName}";
                                            },
                                            "sidecarPathTemplate must lie inside "
                                            "backend.posix.hostPath"},
                                        InvalidCase{
                                            "SidecarInsideTheRoot", kPool, "GatewayPool",
                                            [](YAML::Node& o) {
                                              YAML::Node posix = o["spec"]["backend"]["posix"];
                                              posix["metadata"] = "Sidecar";
                                              posix["sidecarPathTemplate"] =
                                                  posix["pathTemplate"].as<std::string>() + "/meta";
                                            },
                                            "sidecarPathTemplate must be beside the gateway root"},
                                        InvalidCase{
                                            "SidecarNamedAfterTheRoot", kPool, "GatewayPool",
                                            [](YAML::Node& o) {
                                              YAML::Node posix = o["spec"]["backend"]["posix"];
                                              posix["metadata"] = "Sidecar";
                                              posix["sidecarPathTemplate"] =
                                                  posix["pathTemplate"].as<std::string>() + ".meta";
                                            },
                                            "must not begin with pathTemplate's"},
                                        InvalidCase{
                                            "SidecarDotDot", kPool, "GatewayPool",
                                            [](YAML::Node& o) {
                                              o["spec"]["backend"]["posix"]["metadata"] = "Sidecar";
                                              o["spec"]["backend"]["posix"]["sidecarPathTemplate"] =
                                                  "/lustre/agent/vol0/../meta";
                                            },
                                            "sidecarPathTemplate must not contain '//', '.' or "
                                            "'..'"},
                                        InvalidCase{"UnknownMetadataMode", kPool, "GatewayPool",
                                                    [](YAML::Node& o) {
                                                      o["spec"]["backend"]["posix"]["metadata"] =
                                                          "Lustre";
                                                    },
                                                    "Unsupported value: \"Lustre\""},
                                        InvalidCase{
                                            "DotDotInHostPath", kPool, "GatewayPool",
                                            [](YAML::Node& o) {
                                              o["spec"]["backend"]["posix"]["hostPath"] =
                                                  "/lustre/agent/x/..";
                                              o["spec"]["backend"]["posix"]["pathTemplate"] =
                                                  "/lustre/agent/x/../{nodeName}";
                                            },
                                            "hostPath must not contain '.' or '..' segments"},
                                        InvalidCase{
                                            "DoubleSlashInHostPath", kPool, "GatewayPool",
                                            [](YAML::Node& o) {
                                              o["spec"]["backend"]["posix"]["hostPath"] =
                                                  "/lustre//agent/vol0";
                                              o["spec"]["backend"]["posix"]["pathTemplate"] =
                                                  "/lustre//agent/vol0/{nodeName}";
                                            },
                                            "hostPath must not contain '//'"},
                                        InvalidCase{"EmptyNodeSelector", kPool, "GatewayPool",
                                                    [](YAML::Node& o) {
                                                      o["spec"]["nodeSelector"] =
                                                          YAML::Node(YAML::NodeType::Map);
                                                    },
                                                    "spec.nodeSelector in body should have at "
                                                    "least 1 properties"},
                                        InvalidCase{
                                            "TolerationExistsWithValue", kPool, "GatewayPool",
                                            [](YAML::Node& o) {
                                              YAML::Node t;
                                              t["key"] = "dedicated";
                                              t["operator"] = "Exists";
                                              t["value"] = "storage";
                                              o["spec"]["tolerations"].push_back(t);
                                            },
                                            "a toleration with operator Exists must not set value"},
                                        InvalidCase{"HostMemoryWithPeerMem", kGpu, "ClientProfile",
                                                    [](YAML::Node& o) {
                                                      o["spec"]["transport"] = "HostMemory";
                                                      o["spec"]["memoryRegistration"] = "PeerMem";
                                                    },
                                                    "memoryRegistration PeerMem registers GPU "
                                                    "memory, but transport HostMemory"},
                                        InvalidCase{"HostMemoryWithDMABuf", kGpu, "ClientProfile",
                                                    [](YAML::Node& o) {
                                                      o["spec"]["transport"] = "HostMemory";
                                                      o["spec"]["memoryRegistration"] = "DMABuf";
                                                    },
                                                    "memoryRegistration DMABuf registers GPU "
                                                    "memory, but transport HostMemory"},
                                        InvalidCase{"TransferAbove4Gi", kGpu, "ClientProfile",
                                                    [](YAML::Node& o) {
                                                      o["spec"]["maxTransferSize"] = "5Gi";
                                                    },
                                                    "maxTransferSize must be a whole number of "
                                                    "bytes greater than 0 and at most 4Gi"},
                                        InvalidCase{
                                            "TransferZero", kGpu, "ClientProfile",
                                            [](YAML::Node& o) { o["spec"]["maxTransferSize"] = 0; },
                                            "maxTransferSize must be a whole number of bytes "
                                            "greater than 0 and at most 4Gi"},
                                        InvalidCase{"TransferNotAQuantity", kGpu, "ClientProfile",
                                                    [](YAML::Node& o) {
                                                      o["spec"]["maxTransferSize"] = "192MB";
                                                    },
                                                    "maxTransferSize must be a whole number of "
                                                    "bytes greater than 0 and at most 4Gi"},
                                        InvalidCase{"WorkloadTwoDeviceModes", kGpu,
                                                    "ClientProfile",
                                                    [](YAML::Node& o) {
                                                      o["spec"]["workload"]["hostDevice"] =
                                                          YAML::Node(YAML::NodeType::Map);
                                                    },
                                                    "workload must name exactly one way pods "
                                                    "reach the RDMA device"},
                                        InvalidCase{"WorkloadNoDeviceMode", kGpu, "ClientProfile",
                                                    [](YAML::Node& o) {
                                                      o["spec"]["workload"].remove(
                                                          "sharedDevicePlugin");
                                                    },
                                                    "workload must name exactly one way pods "
                                                    "reach the RDMA device"},
                                        InvalidCase{"SriovWithoutNetworkAttachment", kGpu,
                                                    "ClientProfile",
                                                    [](YAML::Node& o) {
                                                      o["spec"]["workload"].remove(
                                                          "sharedDevicePlugin");
                                                      o["spec"]["workload"]["sriov"]
                                                       ["resourceName"] = "nvidia.com/cx6_vf";
                                                    },
                                                    "networkAttachment: Required value"},
                                        InvalidCase{"WorkloadResourceInKubernetesDomain", kGpu,
                                                    "ClientProfile",
                                                    [](YAML::Node& o) {
                                                      o["spec"]["workload"]["sharedDevicePlugin"]
                                                       ["resourceName"] = "kubernetes.io/rdma";
                                                    },
                                                    "resourceName must be an extended resource "
                                                    "outside the kubernetes.io domain"},
                                        InvalidCase{"ConfigMountHidesEtc", kGpu, "ClientProfile",
                                                    [](YAML::Node& o) {
                                                      o["spec"]["workload"]["configMountPath"] =
                                                          "/etc";
                                                    },
                                                    "configMountPath must not hide a system "
                                                    "directory"},
                                        InvalidCase{"S3UserAndCredentialsSecret", kGpu,
                                                    "ClientProfile",
                                                    [](YAML::Node& o) {
                                                      o["spec"]["credentialsSecret"]["name"] =
                                                          "client-keys";
                                                    },
                                                    "s3User and credentialsSecret exclude each "
                                                    "other"},
                                        InvalidCase{"S3UserBucketName", kGpu, "ClientProfile",
                                                    [](YAML::Node& o) {
                                                      o["spec"]["s3User"]["buckets"][0] =
                                                          "Smoke_Bucket";
                                                    },
                                                    "spec.s3User.buckets[0] in body should match"},
                                        InvalidCase{"NoGatewayPoolRef", kGpu, "ClientProfile",
                                                    [](YAML::Node& o) {
                                                      o["spec"].remove("gatewayPoolRef");
                                                    },
                                                    "gatewayPoolRef is required"},
                                        InvalidCase{
                                            "GidIndexTooHigh", kGpu, "ClientProfile",
                                            [](YAML::Node& o) { o["spec"]["gidIndex"] = 300; },
                                            "gidIndex must be Auto or a GID table index 0..255"},
                                        InvalidCase{
                                            "GidIndexLowercaseAuto", kGpu, "ClientProfile",
                                            [](YAML::Node& o) { o["spec"]["gidIndex"] = "auto"; },
                                            "gidIndex must be Auto or a GID table index 0..255"},
                                        InvalidCase{"UnknownDistance", kGpu, "ClientProfile",
                                                    [](YAML::Node& o) {
                                                      o["spec"]["maxGpuNicDistance"] = "NODE";
                                                    },
                                                    "Unsupported value: \"NODE\""},
                                        InvalidCase{
                                            "ClientLibraryTwoParts", kGpu, "ClientProfile",
                                            [](YAML::Node& o) {
                                              o["spec"]["clientLibrary"]["version"] = "1.2";
                                            },
                                            "spec.clientLibrary.version in body should match"},
                                        InvalidCase{"NodeNameMismatch", kNode, "RdmaNode",
                                                    [](YAML::Node& o) {
                                                      o["spec"]["nodeName"] = "some-other-node";
                                                    },
                                                    "spec.nodeName must equal metadata.name"}),
                         [](const auto& info) { return std::string(info.param.name); });

// A stored profile's s3User cannot be removed (its user and keys go with the profile); it can be
// added to one that had none.
TEST_F(CrdIntegrationTest, S3UserCanBeAddedToAProfileButNotRemoved) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  YAML::Node profile = LoadSample(kGpu, "ClientProfile");
  profile["metadata"]["name"] = ::rdmastack::testing::UniqueName("cprof");
  ASSERT_EQ(Send(*env, {"create"}, profile).exit_code, 0);
  YAML::Node without = YAML::Clone(profile);
  without["spec"].remove("s3User");
  // A whole-object update (PUT): a server-side apply by another manager would keep the field.
  const std::vector<std::string> dry_run = {"replace", "--dry-run=server"};
  CommandResult removed = Send(*env, dry_run, without);
  EXPECT_NE(removed.exit_code, 0) << Describe(removed);
  EXPECT_NE(removed.err.find("s3User cannot be removed from a profile"), std::string::npos)
      << Describe(removed);

  YAML::Node plain = YAML::Clone(without);
  plain["metadata"]["name"] = ::rdmastack::testing::UniqueName("cprof");
  ASSERT_EQ(Send(*env, {"create"}, plain).exit_code, 0);
  YAML::Node added = YAML::Clone(plain);
  added["spec"]["s3User"]["buckets"].push_back("smoke");
  CommandResult add = Send(*env, dry_run, added);
  EXPECT_EQ(add.exit_code, 0) << Describe(add);
}

// Updates of a stored pool: the transition rules.
class PoolUpdateTest : public CrdIntegrationTest {
 protected:
  void SetUp() override {
    env_ = ::rdmastack::testing::GetClusterEnv();
    if (env_ == nullptr) return;
    name_ = ::rdmastack::testing::UniqueName("pool");
    YAML::Node pool = Pool("gatewaypool-kvcache.yaml");
    CommandResult r = Send(*env_, {"create"}, pool);
    ASSERT_EQ(r.exit_code, 0) << Describe(r);
  }

  YAML::Node Pool(const std::string& file) const {
    YAML::Node pool = LoadSample(file, "GatewayPool");
    pool["metadata"]["name"] = name_;
    return pool;
  }

  // Server-side dry-run apply of an update to the stored pool.
  CommandResult Update(const YAML::Node& pool) const {
    return Send(*env_,
                {"apply", "--server-side", "--force-conflicts", "--dry-run=server",
                 "--field-manager=rdmastack-crds-test"},
                pool);
  }

  void SetReadyNodes(int ready) const {
    CommandResult r = env_->Kubectl(
        {"patch", "gatewaypool", name_, "-n", namespace_, "--subresource=status", "--type=merge",
         "-p",
         "{\"status\":{\"nodeCounts\":{\"selected\":3,\"ready\":" + std::to_string(ready) + "}}}"});
    ASSERT_EQ(r.exit_code, 0) << Describe(r);
  }

  const ClusterEnv* env_ = nullptr;
  std::string name_;
};

TEST_F(PoolUpdateTest, OneMajorStepForwardAndBackIsAllowed) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  CommandResult up = Update(Pool("gatewaypool-kvcache-2.0.yaml"));
  EXPECT_EQ(up.exit_code, 0) << Describe(up);
  // Store 2.x for real, then roll back to 1.x.
  CommandResult stored = Send(
      *env, {"apply", "--server-side", "--force-conflicts", "--field-manager=rdmastack-crds-test"},
      Pool("gatewaypool-kvcache-2.0.yaml"));
  ASSERT_EQ(stored.exit_code, 0) << Describe(stored);
  CommandResult back = Update(Pool("gatewaypool-kvcache.yaml"));
  EXPECT_EQ(back.exit_code, 0) << Describe(back);
}

TEST_F(PoolUpdateTest, JumpingTwoMajorsIsRejected) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  YAML::Node pool = Pool("gatewaypool-kvcache.yaml");
  pool["spec"]["serverLibrary"]["version"] = "3.0.0.1";
  pool["spec"]["s3"]["port"] = 7073;
  pool["spec"]["rdma"]["port"] = 19102;
  CommandResult r = Update(pool);
  EXPECT_NE(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.err.find("serverLibrary.version 1.2.0.68 -> 3.0.0.1 moves the library major by more "
                       "than one step"),
            std::string::npos)
      << Describe(r);
}

TEST_F(PoolUpdateTest, SideBySideMajorMoveMustChangePorts) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  YAML::Node pool = Pool("gatewaypool-kvcache-2.0.yaml");
  pool["spec"]["s3"]["port"] = 7071;
  CommandResult r = Update(pool);
  EXPECT_NE(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.err.find("s3.port and rdma.port must both change with the major"), std::string::npos)
      << Describe(r);
  pool["spec"]["upgrade"]["strategy"] = "InPlace";  // one gateway at a time may keep its port
  pool["spec"]["rdma"]["port"] = 19100;
  CommandResult in_place = Update(pool);
  EXPECT_EQ(in_place.exit_code, 0) << Describe(in_place);
}

TEST_F(PoolUpdateTest, BackendPathIsImmutable) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  YAML::Node pool = Pool("gatewaypool-kvcache.yaml");
  pool["spec"]["backend"]["posix"]["pathTemplate"] = "/lustre/agent/vol0/other-{nodeName}";
  CommandResult r = Update(pool);
  EXPECT_NE(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.err.find("backend is immutable"), std::string::npos) << Describe(r);
}

// Where existing objects' metadata lives cannot change under them; requireMount may.
TEST_F(PoolUpdateTest, MetadataIsImmutableRequireMountIsNot) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  for (const char* mode : {"None", "Sidecar"}) {
    YAML::Node pool = Pool("gatewaypool-kvcache.yaml");
    pool["spec"]["backend"]["posix"]["metadata"] = mode;
    if (std::string(mode) == "Sidecar")
      pool["spec"]["backend"]["posix"]["sidecarPathTemplate"] =
          "/lustre/agent/vol0/kvcache-meta-{nodeName}";
    CommandResult r = Update(pool);
    EXPECT_NE(r.exit_code, 0) << mode << "\n" << Describe(r);
    EXPECT_NE(r.err.find("backend is immutable"), std::string::npos) << Describe(r);
  }
  YAML::Node pool = Pool("gatewaypool-kvcache.yaml");
  pool["spec"]["backend"]["posix"]["requireMount"] = true;
  CommandResult mount = Update(pool);
  EXPECT_EQ(mount.exit_code, 0) << Describe(mount);
}

TEST_F(PoolUpdateTest, NodeSelectorFrozenOnlyWhileServing) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  YAML::Node pool = Pool("gatewaypool-kvcache.yaml");
  pool["spec"]["nodeSelector"] = YAML::Node(YAML::NodeType::Map);
  pool["spec"]["nodeSelector"]["node-role.rdmastack.io/storage-b"] = "yes";
  CommandResult before = Update(pool);
  EXPECT_EQ(before.exit_code, 0) << "no node serves yet\n" << Describe(before);
  SetReadyNodes(2);
  CommandResult serving = Update(pool);
  EXPECT_NE(serving.exit_code, 0) << Describe(serving);
  EXPECT_NE(
      serving.err.find("spec.nodeSelector cannot change while gateways of this pool are serving"),
      std::string::npos)
      << Describe(serving);
  SetReadyNodes(0);
  CommandResult drained = Update(pool);
  EXPECT_EQ(drained.exit_code, 0) << Describe(drained);
}

// The operator's model of the API server's status checks (crds/schema/schema_fit.h) against the
// API server itself: each status that breaks a rule of the schema is refused as computed, and
// accepted as the operator fits it.
struct StatusCase {
  const char* name;
  const char* resource;  // kubectl's name for the kind
  const char* kind;
  std::string status;  // JSON
};

std::vector<StatusCase> StatusCases() {
  const std::string condition =
      R"({"type":"Ready","status":"False","lastTransitionTime":"2026-12-01T08:12:11Z",)";
  std::string many;
  for (int i = 0; i < 40; ++i)
    many += (i ? "," : "") + std::string(R"({"node":"n)") + std::to_string(i) +
            R"(","reason":"GatewayFailing"})";
  std::string long_message;
  for (int i = 0; i < 700; ++i) long_message += "d\xC3\xA9j\xC3\xA0 ";  // 2 KiB+ of UTF-8
  return {
      {"LongFailingNodeMessage", "gatewaypool", "GatewayPool",
       R"({"failingNodes":[{"node":"a","reason":"GatewayFailing","message":")" + long_message +
           R"("}]})"},
      {"NodeListedTwice", "gatewaypool", "GatewayPool",
       R"({"failingNodes":[{"node":"a","reason":"NewGatewayNotReady"},)"
       R"({"node":"a","reason":"GatewayNotScheduled"}]})"},
      {"TooManyFailingNodes", "gatewaypool", "GatewayPool", R"({"failingNodes":[)" + many + "]}"},
      {"LongConditionReason", "gatewaypool", "GatewayPool",
       R"({"conditions":[)" + condition + R"("reason":")" + std::string(1100, 'R') +
           R"(","message":"m"}]})"},
      {"ConditionTwice", "gatewaypool", "GatewayPool",
       R"({"conditions":[)" + condition + R"("reason":"A","message":"m"},)" + condition +
           R"("reason":"B","message":"m"}]})"},
      {"ConditionReasonNotCamelCase", "gatewaypool", "GatewayPool",
       R"({"conditions":[)" + condition + R"("reason":"not camel case","message":"m"}]})"},
      {"SinceNotADateTime", "gatewaypool", "GatewayPool",
       R"({"failingNodes":[{"node":"a","reason":"R","since":"yesterday"}]})"},
      {"TooManyHoldingPods", "clientprofile", "ClientProfile",
       R"({"retiringNodes":[{"node":"g","phase":"HeldByPods",)"
       R"("pods":["p1","p2","p3","p4","p5","p6","p7"]}]})"},
      {"LinkLayerOutsideItsEnum", "rdmanode", "RdmaNode", R"({"linkLayer":"TokenRing"})"},
      {"LongCheckMessage", "rdmanode", "RdmaNode",
       R"({"checks":[{"id":"a","status":"Fail","message":")" + std::string(1500, 'm') + R"("}]})"},
  };
}

std::string JsonText(const rapidjson::Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return buffer.GetString();
}

TEST_F(CrdIntegrationTest, StatusesTheServerRefusesAreAcceptedOnceFitted) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  const std::string suffix = ::rdmastack::testing::UniqueName("fit");
  YAML::Node pool = LoadSample(kPool, "GatewayPool");
  pool["metadata"]["name"] = suffix;
  YAML::Node profile = LoadSample(kGpu, "ClientProfile");
  profile["metadata"]["name"] = suffix;
  YAML::Node node = LoadSample(kNode, "RdmaNode");
  node["metadata"]["name"] = suffix;
  node["spec"]["nodeName"] = suffix;
  node.remove("status");
  for (const YAML::Node* o : {&pool, &profile, &node}) {
    CommandResult r = Send(*env, {"create"}, *o);
    ASSERT_EQ(r.exit_code, 0) << Describe(r);
  }
  const auto patch_status = [&](const StatusCase& c, const std::string& status) {
    return env->Kubectl({"patch", c.resource, suffix, "-n", namespace_, "--subresource=status",
                         "--type=merge", "--dry-run=server", "-p", "{\"status\":" + status + "}"});
  };
  for (const StatusCase& c : StatusCases()) {
    SCOPED_TRACE(c.name);
    CommandResult raw = patch_status(c, c.status);
    EXPECT_NE(raw.exit_code, 0) << "the server took the status as computed\n" << Describe(raw);
    rapidjson::Document doc;
    doc.Parse(c.status.c_str());
    ASSERT_FALSE(doc.HasParseError());
    auto fixes = FitToSchema(StatusSchemaOf(c.kind), doc, doc.GetAllocator(), "status");
    ASSERT_TRUE(fixes.ok()) << fixes.status().ToString();
    EXPECT_FALSE(fixes->empty());
    CommandResult fitted = patch_status(c, JsonText(doc));
    EXPECT_EQ(fitted.exit_code, 0) << DescribeFixes(*fixes) << "\n" << Describe(fitted);
  }
}

TEST_F(CrdIntegrationTest, DefaultsAreFilledByTheServer) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  YAML::Node profile = LoadSample("clientprofile-hostmem.yaml", "ClientProfile");
  profile["spec"].remove("maxTransferSize");
  CommandResult r = Send(*env, {"create", "--dry-run=server", "-o", "json"}, profile);
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  for (const char* want : {"\"maxTransferSize\": \"64Mi\"", "\"maxGpuNicDistance\": \"PXB\"",
                           "\"loadPeerMem\": false"}) {
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  }
}

// kubectl get shows the printer columns, with values from status.
TEST_F(CrdIntegrationTest, PrinterColumns) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  std::string node_name = ::rdmastack::testing::UniqueName("rnode");
  YAML::Node node = LoadSample("rdmanode-gpu-node-0.yaml", "RdmaNode");
  node["metadata"]["name"] = node_name;
  node["spec"]["nodeName"] = node_name;
  ASSERT_EQ(Send(*env, {"create"}, node).exit_code, 0);
  // RdmaNodes are cluster-scoped: remove this one however the test ends.
  struct DeleteAtExit {
    const ClusterEnv* env;
    std::string name;
    ~DeleteAtExit() { env->Kubectl({"delete", "rdmanode", name, "--wait=false"}); }
  } cleanup{env, node_name};
  ASSERT_EQ(Send(*env, {"create"}, LoadSample("gatewaypool-kvcache.yaml", "GatewayPool")).exit_code,
            0);
  ASSERT_EQ(
      Send(*env, {"create"}, LoadSample("clientprofile-gpudirect.yaml", "ClientProfile")).exit_code,
      0);
  auto patch_status = [&](const std::string& resource, bool namespaced, const std::string& json) {
    std::vector<std::string> args{"patch",        resource, "--subresource=status",
                                  "--type=merge", "-p",     json};
    if (namespaced) args.insert(args.end(), {"-n", namespace_});
    CommandResult r = env->Kubectl(args);
    EXPECT_EQ(r.exit_code, 0) << Describe(r);
  };
  patch_status(
      "gatewaypool/kvcache", true,
      R"({"status":{"library":"1.2.0.68","nodeCounts":{"selected":4,"ready":3,"readyOfSelected":"3/4"},)"
      R"("conditions":[{"type":"Ready","status":"True","reason":"AllNodesReady","message":"ok",)"
      R"("lastTransitionTime":"2026-09-24T10:00:00Z"},{"type":"Upgrading","status":"False",)"
      R"("reason":"UpToDate","message":"no upgrade","lastTransitionTime":"2026-09-24T10:00:00Z"}]}})");
  patch_status(
      "clientprofile/kvcache-gpudirect", true,
      R"({"status":{"transport":"GPUDirect","nodeCounts":{"matched":8,"eligible":7,"eligibleOfMatched":"7/8"}}})");
  // RdmaNode status as in the sample: /status ignores it on create.
  YAML::Node status;
  status["status"] = node["status"];
  patch_status("rdmanode/" + node_name, false, testing::YamlToJson(status));

  CommandResult r = env->Kubectl({"get", "gwp,cprof", "-n", namespace_});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  for (const char* want :
       {"READY", "LIBRARY", "NODES", "UPGRADING", "AGE", "TRANSPORT", "ELIGIBLE", "1.2.0.68", "3/4",
        "GPUDirect", "7/8", "gatewaypool.rdmastack.io/kvcache",
        "clientprofile.rdmastack.io/kvcache-gpudirect"}) {
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  }
  patch_status(
      "clientprofile/kvcache-gpudirect", true,
      R"({"status":{"s3User":{"secretName":"kvcache-gpudirect-s3-user",)"
      R"("accessKeyId":"RSAAAAAAAA0123456789","gateways":3,"gatewaysOfEndpoints":"3/4"}}})");
  r = env->Kubectl({"get", "cprof", "-o", "wide", "-n", namespace_});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  for (const char* want : {"ENDPOINTS", "S3USER", "3/4"})
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  r = env->Kubectl({"get", "rnode", node_name});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  for (const char* want :
       {"LINK", "GATEWAY", "GPUDIRECT", "HOSTMEM", "REPORTING", "InfiniBand", "Verified"}) {
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  }
  // All three in one call, and through the category.
  r = env->Kubectl({"get", "gwp,cprof,rnode", "-n", namespace_});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("rdmanode.rdmastack.io/" + node_name), std::string::npos) << r.out;
  r = env->Kubectl({"get", "rdmastack", "-n", namespace_});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("gatewaypool.rdmastack.io/kvcache"), std::string::npos) << r.out;
}

TEST_F(CrdIntegrationTest, ExplainPrintsTheDescriptions) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  // The apiserver publishes a new CRD's OpenAPI a moment after it is Established.
  CommandResult r;
  for (int attempt = 0; attempt < 30; ++attempt) {
    r = env->Kubectl({"explain", "gatewaypool.spec.upgrade"});
    if (r.exit_code == 0 && r.out.find("maxParallel") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  for (const char* want :
       {"How a change of the server library or gateway rolls over the nodes", "strategy",
        "SideBySide starts the new track next to the old one", "maxUnavailable", "maxParallel",
        "Most nodes in the middle of an upgrade at once", "validationTimeout", "drainSeconds",
        "paused", "autoRollback"}) {
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  }
  r = env->Kubectl({"explain", "clientprofile.spec.maxTransferSize"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("192Mi worked"), std::string::npos) << r.out;
  r = env->Kubectl({"explain", "rdmanode.status.verdicts"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("gpuDirect"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace rdmastack::crd
