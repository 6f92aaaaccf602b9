#include "cli/kubectl-rdmastack/bench_job.h"

#include <gtest/gtest.h>

namespace rdmastack::plugin {
namespace {

crd::ClientProfile Profile() {
  crd::ClientProfile p;
  p.metadata.name = "kvcache-gpudirect";
  p.metadata.namespace_ = "demo";
  p.spec.workload.emplace();
  p.spec.s3_user.emplace().buckets = {"smoke", "kv"};
  p.status.emplace().node_counts.emplace().ready = 2;
  return p;
}

Options Bench() {
  Options o;
  o.command = Command::kBench;
  o.argument = "kvcache-gpudirect";
  return o;
}

std::vector<std::string> Args(const k8s::JsonObject& job) {
  std::vector<std::string> out;
  for (const auto& c : job.GetArray({"spec", "template", "spec", "containers"}))
    for (const auto& a : c.GetArray({"args"})) out.push_back(a.GetString({}).value_or("?"));
  return out;
}

TEST(BenchJobTest, APodOfTheProfileRunsTheClientImagesBenchWithoutAnApiToken) {
  Options o = Bench();
  o.bench_size = "1Mi";
  o.bench_streams = "1,2,4";
  o.pod_labels = {{"rdmastack.io/simulate", "run"}};
  StatusOr<BenchJob> b = RenderBenchJob(Profile(), o, "ghcr.io/rdmastack/client:0.9");
  ASSERT_TRUE(b.ok()) << b.status().message();
  const k8s::JsonObject& job = b->job;
  EXPECT_EQ(b->bucket, "smoke") << "the profile's first bucket";
  EXPECT_EQ(job.GetString({"metadata", "generateName"}), "rdmastack-bench-kvcache-gpudirect-");
  EXPECT_EQ(job.GetString({"metadata", "namespace"}), "demo");
  EXPECT_EQ(job.GetInt({"spec", "backoffLimit"}), 0);
  EXPECT_EQ(job.GetInt({"spec", "activeDeadlineSeconds"}), 600);
  const k8s::JsonPath labels = {"spec", "template", "metadata", "labels"};
  EXPECT_EQ(job.Get(labels)->Serialize(),
            R"({"rdmastack.io/simulate":"run","app.kubernetes.io/name":"rdmastack-bench",)"
            R"("rdmastack.io/client-profile":"kvcache-gpudirect"})");
  EXPECT_EQ(job.GetBool({"spec", "template", "spec", "automountServiceAccountToken"}), false);
  EXPECT_EQ(Args(job), (std::vector<std::string>{"bench", "--bucket", "smoke", "--size", "1Mi",
                                                 "--streams", "1,2,4"}));
  const k8s::JsonObject c = job.GetArray({"spec", "template", "spec", "containers"})[0];
  EXPECT_EQ(c.GetString({"image"}), "ghcr.io/rdmastack/client:0.9");
  // 1 MiB x 4 streams x 2 + 96 MiB.
  EXPECT_EQ(c.GetString({"resources", "limits", "memory"}), std::to_string((8 + 96) << 20));
  // s3User: the webhook adds the keys; the Job names no Secret.
  EXPECT_EQ(c.Serialize().find("secretKeyRef"), std::string::npos) << c.Serialize();
}

TEST(BenchJobTest, ACredentialsSecretProfileGetsItsKeysAndANodeIsPinned) {
  crd::ClientProfile p = Profile();
  p.spec.s3_user.reset();
  p.spec.credentials_secret = crd::CredentialsSecretRef{"app-keys", "id", "secret"};
  Options o = Bench();
  o.bench_bucket = "any";
  o.bench_node = "gpu-node-1";
  StatusOr<BenchJob> b = RenderBenchJob(p, o, "img");
  ASSERT_TRUE(b.ok()) << b.status().message();
  const std::string c = b->job.GetArray({"spec", "template", "spec", "containers"})[0].Serialize();
  EXPECT_NE(c.find(R"({"name":"AWS_ACCESS_KEY_ID","valueFrom":{"secretKeyRef":{"name":"app-keys",)"
                   R"("key":"id"}}})"),
            std::string::npos)
      << c;
  EXPECT_EQ(
      b->job.GetString({"spec", "template", "spec", "nodeSelector", "kubernetes.io/hostname"}),
      "gpu-node-1");
  o.bench_bucket.clear();
  EXPECT_EQ(RenderBenchJob(p, o, "img").status().code(), StatusCode::kInvalidArgument);
}

TEST(BenchJobTest, WhatCannotBeBenchmarkedSaysWhatToDo) {
  struct Case {
    const char* want;
    std::function<void(crd::ClientProfile&, Options&)> change;
  };
  const Case cases[] = {
      {"has no spec.workload", [](crd::ClientProfile& p, Options&) { p.spec.workload.reset(); }},
      {"neither spec.s3User nor spec.credentialsSecret",
       [](crd::ClientProfile& p, Options&) { p.spec.s3_user.reset(); }},
      {"no node whose client data plane is Ready",
       [](crd::ClientProfile& p, Options&) { p.status->node_counts->ready = 0; }},
      {"is not one of", [](crd::ClientProfile&, Options& o) { o.bench_bucket = "other"; }},
      {"--size", [](crd::ClientProfile&, Options& o) { o.bench_size = "8MB!"; }},
      {"ascending", [](crd::ClientProfile&, Options& o) { o.bench_streams = "4,1"; }},
      {"from 10s to 2h", [](crd::ClientProfile&, Options& o) { o.bench_timeout = "1s"; }},
  };
  for (const Case& c : cases) {
    crd::ClientProfile p = Profile();
    Options o = Bench();
    c.change(p, o);
    StatusOr<BenchJob> b = RenderBenchJob(p, o, "img");
    ASSERT_FALSE(b.ok()) << c.want;
    EXPECT_NE(b.status().message().find(c.want), std::string::npos) << b.status().message();
  }
}

TEST(BenchJobTest, TheImageIsTheClientContainersOfTheProfilesDaemonSet) {
  auto ds = k8s::JsonObject::Parse(
      R"({"metadata":{"name":"p-client"},"spec":{"template":{"spec":{"containers":[)"
      R"({"name":"sidecar","image":"x"},{"name":"client","image":"reg/client:1"}]}}}})");
  ASSERT_TRUE(ds.ok());
  EXPECT_EQ(ClientImageOf(*ds).value(), "reg/client:1");
  EXPECT_FALSE(ClientImageOf(k8s::JsonObject()).ok());
}

}  // namespace
}  // namespace rdmastack::plugin
