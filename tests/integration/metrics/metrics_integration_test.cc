// The operator's secure /metrics against the real API server: a Manager in this process serves
// HTTPS and asks the API server (TokenReview, SubjectAccessReview) about every scraper. An
// anonymous scrape gets 401, a ServiceAccount without RBAC 403, one bound to a ClusterRole with
// `get` on the non-resource URL /metrics 200 with a body the real `promtool check metrics`
// accepts. The API server's audit log shows that decisions are cached, and a revoked binding
// takes effect once the cached decision expires.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <thread>

#include "base/clock.h"
#include "operator/k8s/client.h"
#include "operator/k8s/config.h"
#include "operator/runtime/manager.h"
#include "operator/runtime/predicates.h"
#include "operator/runtime/testing/counting_reconciler.h"
#include "operator/runtime/testing/http_fetch.h"
#include "tests/harness/audit_log.h"
#include "tests/harness/cluster_env.h"
#include "tests/harness/scope_exit.h"
#include "tests/integration/runtime/runtime_cluster.h"

namespace rdmastack::runtime {
namespace {

using namespace std::chrono_literals;
using rdmastack::testing::Eventually;
using rdmastack::testing::ScopeExit;

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

TEST(MetricsIntegrationTest, ScrapesAreAuthenticatedAndAuthorisedByTheApiServer) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  const std::string promtool = EnvOr("RDMASTACK_PROMTOOL", "");
  ASSERT_FALSE(promtool.empty())
      << "RDMASTACK_PROMTOOL is not set: eval \"$(scripts/cluster.sh env)\" (cluster.sh up builds "
         "promtool)";
  ASSERT_FALSE(EnvOr("RDMASTACK_AUDIT_LOG", "").empty())
      << "RDMASTACK_AUDIT_LOG is not set: eval \"$(scripts/cluster.sh env)\"";

  auto admin = integration::AdminClient(*env);
  ASSERT_NE(admin, nullptr);
  const std::string ns = integration::CreateNamespace(*env, "metrics-auth");
  const std::string role = ns + "-metrics-reader";
  ScopeExit cleanup([&] {
    (void)env->Kubectl({"delete", "clusterrole,clusterrolebinding", role, "--ignore-not-found"});
    integration::DeleteNamespace(*env, ns);
  });
  for (const char* sa : {"denied", "scraper"}) {
    auto r = env->Kubectl({"-n", ns, "create", "serviceaccount", sa});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  auto r =
      env->Kubectl({"create", "clusterrole", role, "--non-resource-url=/metrics", "--verb=get"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = env->Kubectl({"create", "clusterrolebinding", role, "--clusterrole=" + role,
                    "--serviceaccount=" + ns + ":scraper"});
  ASSERT_EQ(r.exit_code, 0) << r.err;

  // The manager's own client, with a user agent of its own so that the audit log can tell its
  // reviews from everyone else's.
  auto config = k8s::LoadKubeconfig(env->kubeconfig);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  const std::string user_agent = "rdmastack-metrics-integration-test/" + ns;
  config->user_agent = user_agent;
  auto client = k8s::NewRestClient(*config);
  ASSERT_TRUE(client.ok()) << client.status().ToString();

  ManagerOptions options;
  options.health_probe_bind_address = "127.0.0.1:0";
  options.metrics.bind_address = "127.0.0.1:0";  // secure by default: HTTPS, self-signed
  options.api_host = "apiserver";
  options.leader_election = LeaderElectionConfig{ns, "metrics-it", "metrics-it-0"};
  Manager manager(**client, RealClock::Instance(), options);
  testing::CountingReconciler reconciler;
  InformerOptions informer;
  informer.type = k8s::kinds::ConfigMap();
  informer.ns = ns;
  manager.NewController("configmaps", reconciler)
      .Watch(manager.cache().Get(informer), EnqueueSelf());
  Status run_result = UnknownError("not finished");
  std::thread runner([&] { run_result = manager.Run(); });
  ScopeExit stop([&] {
    manager.RequestStop();
    if (runner.joinable()) runner.join();
  });

  ASSERT_TRUE(Eventually([&] { return manager.Leading(); }, 60s));
  r = env->Kubectl({"-n", ns, "create", "configmap", "subject"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(Eventually([&] { return reconciler.calls.load() >= 1; }, 30s));

  // Probes: plain HTTP on their own port, no authentication.
  auto healthz = testing::HttpFetch(manager.health_probe_port(), "/healthz");
  ASSERT_TRUE(healthz.ok()) << healthz.status().ToString();
  EXPECT_EQ(healthz->status, 200);
  auto readyz = testing::HttpFetch(manager.health_probe_port(), "/readyz");
  ASSERT_TRUE(readyz.ok()) << readyz.status().ToString();
  EXPECT_EQ(readyz->status, 200);

  const uint16_t port = manager.metrics_port();
  auto scrape = [&](const std::string& token) {
    return testing::HttpFetch(port, "/metrics", {.tls = true, .bearer_token = token});
  };
  auto anonymous = scrape("");
  ASSERT_TRUE(anonymous.ok()) << anonymous.status().ToString();
  EXPECT_EQ(anonymous->status, 401) << anonymous->body;
  auto bogus = scrape("not-a-token");
  ASSERT_TRUE(bogus.ok()) << bogus.status().ToString();
  EXPECT_EQ(bogus->status, 401) << bogus->body;

  auto denied_token = k8s::RequestServiceAccountToken(*admin, ns, "denied");
  ASSERT_TRUE(denied_token.ok()) << denied_token.status().ToString();
  auto denied = scrape(*denied_token);
  ASSERT_TRUE(denied.ok()) << denied.status().ToString();
  EXPECT_EQ(denied->status, 403);
  EXPECT_EQ(denied->body,
            "Authorization denied for user system:serviceaccount:" + ns + ":denied\n");

  // RBAC reaches the API server's authorizer through its informers: wait until it answers yes,
  // so that no 403 from before the binding was seen gets cached.
  ASSERT_TRUE(Eventually(
      [&] {
        auto can = env->Kubectl(
            {"auth", "can-i", "get", "/metrics", "--as=system:serviceaccount:" + ns + ":scraper"});
        return can.exit_code == 0 && can.out.find("yes") != std::string::npos;
      },
      30s));
  auto scraper_token = k8s::RequestServiceAccountToken(*admin, ns, "scraper");
  ASSERT_TRUE(scraper_token.ok()) << scraper_token.status().ToString();
  auto allowed = scrape(*scraper_token);
  // The scraper's decision is cached from before this point on.
  const auto allowed_at = std::chrono::steady_clock::now();
  ASSERT_TRUE(allowed.ok()) << allowed.status().ToString();
  ASSERT_EQ(allowed->status, 200) << allowed->body;
  for (const std::string want :
       {"controller_runtime_reconcile_total{controller=\"configmaps\",result=\"success\"}",
        "controller_runtime_reconcile_errors_total{controller=\"configmaps\"} 0",
        "controller_runtime_reconcile_time_seconds_bucket{controller=\"configmaps\",le=\"+Inf\"}",
        "workqueue_adds_total{name=\"configmaps\"}",
        "leader_election_master_status{name=\"metrics-it\"} 1",
        // The reviews themselves went through the manager's instrumented client.
        "rest_client_requests_total{code=\"201\",host=\"apiserver\",method=\"POST\"}"}) {
    EXPECT_NE(allowed->body.find(want), std::string::npos) << want << "\n" << allowed->body;
  }

  auto check = rdmastack::testing::RunCommand({promtool, "check", "metrics"}, allowed->body);
  EXPECT_EQ(check.exit_code, 0) << "promtool check metrics:\n" << check.out << check.err;
  std::printf("promtool check metrics on %zu bytes: exit %d %s%s\n", allowed->body.size(),
              check.exit_code, check.out.c_str(), check.err.c_str());
  // The check above is a real one: promtool rejects a malformed exposition.
  auto broken = rdmastack::testing::RunCommand({promtool, "check", "metrics"},
                                               allowed->body + "no_value_here{\n");
  EXPECT_NE(broken.exit_code, 0) << broken.out << broken.err;

  // Within the cache TTL (10 s) further scrapes cost the API server nothing. The audit event of
  // a request may land just after its response: wait for the expected counts, then check that
  // five more scrapes add none.
  auto reviews = [&] {
    const auto writes = rdmastack::testing::ReadAuditedWrites();
    return std::make_pair(
        rdmastack::testing::CountAudited(writes, "create", "tokenreviews", user_agent),
        rdmastack::testing::CountAudited(writes, "create", "subjectaccessreviews", user_agent));
  };
  // TokenReviews: bogus, denied, scraper; SubjectAccessReviews: denied, scraper. The anonymous
  // scrape cost none.
  EXPECT_TRUE(Eventually([&] { return reviews() == std::make_pair(3, 2); }, 5s))
      << reviews().first << " TokenReviews, " << reviews().second << " SubjectAccessReviews";
  for (int i = 0; i < 5; ++i) {
    auto again = scrape(*scraper_token);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->status, 200);
  }
  std::this_thread::sleep_for(1s);
  // The decision was cached a little before allowed_at, and on a loaded machine (the promtool
  // runs, the audit wait) the scrapes can reach its expiry: then each scrape after it may cost
  // one more review pair, and no more within the next TTL. Strict while surely within the TTL.
  const auto since_allowed = std::chrono::steady_clock::now() - allowed_at;
  if (since_allowed < 8s) {
    EXPECT_EQ(reviews(), std::make_pair(3, 2));
  } else {
    std::printf(
        "the five scrapes ended %.1f s after the first: the cached decision may have "
        "expired, one more review pair allowed\n",
        std::chrono::duration<double>(since_allowed).count());
    EXPECT_LE(reviews().first, 4);
    EXPECT_LE(reviews().second, 3);
  }

  // Revoking the binding takes effect once the cached decision expires.
  const auto revoked_at = std::chrono::steady_clock::now();
  r = env->Kubectl({"delete", "clusterrolebinding", role});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Eventually(
      [&] {
        auto after = scrape(*scraper_token);
        return after.ok() && after->status == 403;
      },
      60s));
  std::printf("revoked binding refused after %.1f s (decision cache TTL 10 s)\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - revoked_at).count());

  manager.RequestStop();
  runner.join();
  EXPECT_TRUE(run_result.ok()) << run_result.ToString();
}

}  // namespace
}  // namespace rdmastack::runtime
