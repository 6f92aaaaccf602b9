// The pod as the webhook hands it back, per device mode (goldens), and the rules around it:
// idempotence, conflicts kept and named, node affinity in every term, Multus networks merged,
// and the refusals.
#include "controllers/workload/pod_injection.h"

#include <gtest/gtest.h>

#include <map>

#include "crds/types/json.h"
#include "crds/types/test_support.h"
#include "tests/harness/golden.h"

namespace rdmastack::workload {
namespace {

crd::ClientProfile Profile() {
  auto parsed =
      crd::ParseResource<crd::ClientProfile>(crd::testing::YamlToJson(crd::testing::FindKind(
          crd::testing::LoadSourceYaml("crds/samples/clientprofile-gpudirect.yaml"),
          "ClientProfile")));
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  crd::ClientProfile p = parsed.ok() ? *parsed : crd::ClientProfile{};
  p.metadata.namespace_ = "ml";
  p.status.emplace().node_counts.emplace();
  p.status->node_counts->eligible = 3;
  p.status->node_counts->ready = 2;
  return p;
}

crd::ClientProfile WithMode(const char* mode) {
  crd::ClientProfile p = Profile();
  crd::WorkloadSpec& w = *p.spec.workload;
  w.shared_device_plugin.reset();
  if (std::string(mode) == "shared") w.shared_device_plugin = crd::SharedDevicePluginMode{};
  if (std::string(mode) == "sriov") w.sriov = crd::SriovMode{"nvidia.com/cx6_vf", "sriov-rdma"};
  if (std::string(mode) == "host") w.host_device = crd::HostDeviceMode{};
  return p;
}

k8s::JsonObject Pod(std::string_view json = R"({
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {"generateName": "trainer-", "labels": {"rdmastack.io/client-profile": "kvcache-gpudirect"}},
  "spec": {"containers": [
    {"name": "trainer", "image": "registry.local/trainer:1", "resources": {"limits": {"nvidia.com/gpu": "1"}}},
    {"name": "log-shipper", "image": "registry.local/shipper:2"}]}})") {
  auto pod = k8s::JsonObject::Parse(json);
  EXPECT_TRUE(pod.ok()) << pod.status().ToString();
  return pod.ok() ? *pod : k8s::JsonObject();
}

// An application pod reaches its own profile's directory on the host, read-only, and nothing
// above or beside it (not the root that holds every profile's directory), in every device mode.
TEST(PodInjectionTest, MountsOnlyTheProfilesOwnDirectoryReadOnly) {
  for (const char* mode : {"shared", "sriov", "host"}) {
    const k8s::JsonObject pod = InjectClientProfile(Pod(), WithMode(mode), "ml");
    std::map<std::string, std::string> host_paths;
    for (const auto& v : pod.GetArray({"spec", "volumes"})) {
      if (auto path = v.GetString({"hostPath", "path"}))
        host_paths[v.GetString({"name"}).value_or("")] = *path;
    }
    EXPECT_EQ(host_paths.at(kConfigVolume), "/var/lib/rdmastack/client/ml.kvcache-gpudirect")
        << mode;
    for (const auto& [volume, path] : host_paths) {
      EXPECT_TRUE(volume == kConfigVolume || path == kDevPath) << mode << ": " << path;
    }
    for (const auto& c : pod.GetArray({"spec", "containers"})) {
      for (const auto& m : c.GetArray({"volumeMounts"})) {
        if (m.GetString({"name"}) != kConfigVolume) continue;
        EXPECT_EQ(m.GetBool({"readOnly"}), true) << mode;
      }
    }
  }
}

class InjectionGoldenTest : public ::testing::TestWithParam<const char*> {};

TEST_P(InjectionGoldenTest, MatchesGoldenAndIsIdempotent) {
  const crd::ClientProfile profile = WithMode(GetParam());
  ASSERT_TRUE(CheckAdmissible(profile).ok());
  const k8s::JsonObject once = InjectClientProfile(Pod(), profile, "ml");
  testing::ExpectMatchesGolden(
      std::string("controllers/workload/tests/golden/") + GetParam() + ".json",
      once.SerializePretty() + "\n");
  const k8s::JsonObject twice = InjectClientProfile(once, profile, "ml");
  EXPECT_EQ(twice.Serialize(), once.Serialize());
  EXPECT_TRUE(PodPatch(once, twice).value().Empty()) << PodPatch(once, twice).Serialize();
  EXPECT_FALSE(once.Annotation(kConflictsAnnotation)) << *once.Annotation(kConflictsAnnotation);
}

INSTANTIATE_TEST_SUITE_P(Modes, InjectionGoldenTest, ::testing::Values("shared", "sriov", "host"));

TEST(PodInjectionTest, ContainerSettingsWinAndAreNamed) {
  k8s::JsonObject pod = Pod(R"({
    "metadata": {"name": "app", "labels": {"rdmastack.io/client-profile": "kvcache-gpudirect"}},
    "spec": {"volumes": [{"name": "mine", "emptyDir": {}}],
      "containers": [{"name": "app", "image": "x:1",
        "env": [{"name": "LD_LIBRARY_PATH", "value": "/opt/app/lib"}],
        "volumeMounts": [{"name": "mine", "mountPath": "/etc/rdmastack/client"}],
        "securityContext": {"capabilities": {"drop": ["IPC_LOCK"]}}}]}})");
  const crd::ClientProfile profile = WithMode("shared");
  const k8s::JsonObject out = InjectClientProfile(pod, profile, "ml");
  const std::string conflicts = out.Annotation(kConflictsAnnotation).value_or("");
  EXPECT_NE(conflicts.find("container app: env LD_LIBRARY_PATH is set by the pod (kept"),
            std::string::npos)
      << conflicts;
  EXPECT_NE(conflicts.find("container app: /etc/rdmastack/client is mounted from volume mine"),
            std::string::npos)
      << conflicts;
  EXPECT_NE(conflicts.find("container app: drops IPC_LOCK"), std::string::npos) << conflicts;
  EXPECT_EQ(out.GetString({"spec", "containers", "0", "env", "0", "value"}), "/opt/app/lib");
  EXPECT_EQ(out.GetArray({"spec", "containers", "0", "volumeMounts"}).size(), 1u);
  EXPECT_FALSE(out.Has({"spec", "containers", "0", "securityContext", "capabilities", "add"}));
  // The rest is still injected, and a second pass finds the same conflicts and changes nothing.
  EXPECT_EQ(out.GetString(
                {"spec", "containers", "0", "resources", "limits", "rdma/hca_shared_devices_a"}),
            "1");
  EXPECT_TRUE(PodPatch(out, InjectClientProfile(out, profile, "ml")).value().Empty());
}

// Only a request made by hand has such a pod: what cannot be added is named, the rest is added.
TEST(PodInjectionTest, FieldsOfAnotherTypeAreNamedWithTheConflicts) {
  const k8s::JsonObject pod = Pod(R"({
    "metadata": {"name": "app", "labels": {"rdmastack.io/client-profile": "kvcache-gpudirect"}},
    "spec": {"containers": [{"name": "app", "image": "x:1", "env": "PATH=/bin",
                             "resources": {"limits": 4}}]}})");
  const k8s::JsonObject out = InjectClientProfile(pod, WithMode("shared"), "ml");
  const std::string conflicts = out.Annotation(kConflictsAnnotation).value_or("");
  EXPECT_NE(conflicts.find("container app: env LD_LIBRARY_PATH not injected (env is not an array)"),
            std::string::npos)
      << conflicts;
  EXPECT_NE(conflicts.find("container app: resource rdma/hca_shared_devices_a not injected"),
            std::string::npos)
      << conflicts;
  EXPECT_EQ(out.GetString({"spec", "containers", "0", "env"}), "PATH=/bin");
  EXPECT_EQ(out.GetArray({"spec", "containers", "0", "volumeMounts"}).size(), 1u);
}

TEST(PodInjectionTest, TheProfilesS3UserKeysComeFromItsSecretUnlessThePodSetsItsOwn) {
  const crd::ClientProfile profile = WithMode("shared");
  ASSERT_TRUE(profile.spec.s3_user.has_value());
  const k8s::JsonObject out = InjectClientProfile(Pod(), profile, "ml");
  std::map<std::string, std::string> from_secret;
  for (const auto& e : out.GetArray({"spec", "containers", "1", "env"})) {
    if (auto secret = e.GetString({"valueFrom", "secretKeyRef", "name"}))
      from_secret[e.GetString({"name"}).value_or("")] =
          *secret + "/" + e.GetString({"valueFrom", "secretKeyRef", "key"}).value_or("");
  }
  EXPECT_EQ(from_secret["AWS_ACCESS_KEY_ID"], "kvcache-gpudirect-s3-user/accessKeyId");
  EXPECT_EQ(from_secret["AWS_SECRET_ACCESS_KEY"], "kvcache-gpudirect-s3-user/secretAccessKey");

  const k8s::JsonObject own = InjectClientProfile(Pod(R"({
    "metadata": {"name": "app", "labels": {"rdmastack.io/client-profile": "kvcache-gpudirect"}},
    "spec": {"containers": [{"name": "app", "image": "x:1",
        "env": [{"name": "AWS_ACCESS_KEY_ID", "value": "MINE"}]}]}})"),
                                                  profile, "ml");
  EXPECT_EQ(own.GetString({"spec", "containers", "0", "env", "0", "value"}), "MINE");
  EXPECT_NE(own.Annotation(kConflictsAnnotation)
                .value_or("")
                .find("env AWS_ACCESS_KEY_ID is set by the pod (kept; the profile's value is "
                      "Secret kvcache-gpudirect-s3-user key accessKeyId)"),
            std::string::npos)
      << own.Annotation(kConflictsAnnotation).value_or("");

  crd::ClientProfile without = profile;
  without.spec.s3_user.reset();
  EXPECT_EQ(InjectClientProfile(Pod(), without, "ml").Serialize().find("AWS_ACCESS_KEY_ID"),
            std::string::npos);
}

TEST(PodInjectionTest, EveryNodeSelectorTermRequiresTheReadyLabel) {
  k8s::JsonObject pod = Pod(R"({"metadata": {"name": "a"}, "spec": {
    "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
      "nodeSelectorTerms": [
        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]},
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["gpu-node-3"]}]}]}}},
    "containers": [{"name": "c", "image": "x:1"}]}})");
  const k8s::JsonObject out = InjectClientProfile(pod, WithMode("shared"), "ml");
  const auto terms =
      out.GetArray({"spec", "affinity", "nodeAffinity",
                    "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"});
  ASSERT_EQ(terms.size(), 2u);
  for (const auto& term : terms) {
    const auto expressions = term.GetArray({"matchExpressions"});
    ASSERT_FALSE(expressions.empty()) << term.Serialize();
    EXPECT_EQ(expressions.back().GetString({"key"}), "rdmastack.io/client.ml.kvcache-gpudirect");
    EXPECT_EQ(expressions.back().GetString({"values", "0"}), "ready");
  }
  EXPECT_EQ(terms[0].GetArray({"matchExpressions"}).size(), 2u);
  EXPECT_EQ(terms[1].GetArray({"matchFields"}).size(), 1u);
}

TEST(PodInjectionTest, SriovNetworkJoinsTheNetworksThePodAlreadyHas) {
  const crd::ClientProfile profile = WithMode("sriov");
  auto networks = [&](std::string_view annotation) {
    k8s::JsonObject pod = Pod();
    if (!annotation.empty()) pod.SetAnnotation(kNetworksAnnotation, annotation);
    return InjectClientProfile(pod, profile, "ml").Annotation(kNetworksAnnotation).value_or("");
  };
  EXPECT_EQ(networks(""), "sriov-rdma");
  EXPECT_EQ(networks("macvlan-a"), "macvlan-a,sriov-rdma");
  EXPECT_EQ(networks("macvlan-a, ml/sriov-rdma@net1"), "macvlan-a, ml/sriov-rdma@net1");
  EXPECT_EQ(networks(R"([{"name":"macvlan-a"}])"),
            R"([{"name":"macvlan-a"},{"name":"sriov-rdma","namespace":"ml"}])");
  EXPECT_EQ(networks(R"([{"name":"sriov-rdma","namespace":"ml"}])"),
            R"([{"name":"sriov-rdma","namespace":"ml"}])");
}

TEST(PodInjectionTest, OnlyTheFirstContainerHoldsTheVf) {
  const k8s::JsonObject out = InjectClientProfile(Pod(), WithMode("sriov"), "ml");
  EXPECT_EQ(out.GetString({"spec", "containers", "0", "resources", "limits", "nvidia.com/cx6_vf"}),
            "1");
  EXPECT_FALSE(out.Has({"spec", "containers", "1", "resources", "limits", "nvidia.com/cx6_vf"}));
}

TEST(PodInjectionTest, RefusalsSayWhatIsMissing) {
  crd::ClientProfile p = Profile();
  p.status->node_counts->ready = 0;
  Status s = CheckAdmissible(p);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("ClientProfile ml/kvcache-gpudirect has no node whose client data "
                             "plane is Ready (3 eligible)"),
            std::string::npos)
      << s.message();
  p.status.reset();
  EXPECT_NE(CheckAdmissible(p).message().find("(0 eligible)"), std::string::npos);
  p.spec.workload.reset();
  EXPECT_NE(CheckAdmissible(p).message().find("has no spec.workload"), std::string::npos);
  EXPECT_NE(ProfileNotFoundMessage("ml", "nope")
                .find("ClientProfile \"nope\" not found in namespace \"ml\""),
            std::string::npos);
}

TEST(PodPatchTest, ReplacesOnlyTheMembersThatDiffer) {
  const k8s::JsonObject before = Pod();
  const k8s::JsonObject after = InjectClientProfile(before, WithMode("shared"), "ml");
  const k8s::JsonObject ops = PodPatch(before, after);
  std::vector<std::string> paths;
  for (const auto& op : ops.GetArray({}))
    paths.push_back(*op.GetString({"op"}) + " " + *op.GetString({"path"}));
  EXPECT_EQ(paths, (std::vector<std::string>{"add /metadata/annotations", "add /spec/affinity",
                                             "replace /spec/containers", "add /spec/volumes"}));
}

}  // namespace
}  // namespace rdmastack::workload
