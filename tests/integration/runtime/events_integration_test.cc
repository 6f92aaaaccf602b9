// Events recorded through ApiEventRecorder appear in the API (and so in kubectl) as
// events.k8s.io/v1 objects, with repeats aggregated into one series.

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "operator/k8s/json_object.h"
#include "operator/runtime/event_recorder.h"
#include "tests/integration/runtime/runtime_cluster.h"

namespace rdmastack::runtime {
namespace {

TEST(EventsIntegrationTest, RepeatsBecomeASeriesVisibleThroughKubectl) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  auto client = integration::AdminClient(*env);
  ASSERT_NE(client, nullptr);
  const std::string ns = integration::CreateNamespace(*env, "rt-events");
  ASSERT_EQ(env->Kubectl({"-n", ns, "create", "configmap", "subject"}).exit_code, 0);
  auto subject = client->Get(k8s::kinds::ConfigMap(), ns, "subject");
  ASSERT_TRUE(subject.ok()) << subject.status().ToString();

  EventRecorderOptions options;
  options.reporting_controller = "rdmastack.io/runtime-integration-test";
  options.reporting_instance = "test-0";
  // Short housekeeping so that the test sees the refreshed count without waiting 30 minutes.
  options.series.refresh_interval = std::chrono::seconds(1);
  options.tick_interval = std::chrono::milliseconds(200);
  ApiEventRecorder recorder(*client, RealClock::Instance(), options);
  recorder.Start();
  for (int i = 0; i < 5; ++i) {
    recorder.Record(*subject, EventType::kWarning, "ProbeFailed", "Probe",
                    "gateway did not answer");
  }
  recorder.Record(*subject, EventType::kNormal, "Configured", "Configure", "applied once");
  recorder.Flush();

  // Wait for the refresh to write count 5.
  int series_count = 0;
  std::string listing;
  for (int attempt = 0; attempt < 100 && series_count != 5; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto r = env->Kubectl({"-n", ns, "get", "events.events.k8s.io", "-o", "json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto list = k8s::JsonObject::Parse(r.out);
    ASSERT_TRUE(list.ok());
    int probe_events = 0;
    int configured = 0;
    for (const auto& e : list->GetArray({"items"})) {
      if (e.GetString({"reason"}) == "ProbeFailed") {
        ++probe_events;
        series_count = static_cast<int>(e.GetInt({"series", "count"}).value_or(0));
        EXPECT_EQ(e.GetString({"regarding", "name"}), "subject");
        EXPECT_EQ(e.GetString({"reportingController"}), options.reporting_controller);
        EXPECT_EQ(e.GetString({"type"}), "Warning");
      }
      if (e.GetString({"reason"}) == "Configured") {
        ++configured;
        EXPECT_FALSE(e.Has({"series"}));
      }
    }
    EXPECT_LE(probe_events, 1);  // one object for the whole series
    EXPECT_LE(configured, 1);
  }
  EXPECT_EQ(series_count, 5);
  // The human view shows both.
  auto table = env->Kubectl({"-n", ns, "get", "events"});
  EXPECT_NE(table.out.find("ProbeFailed"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("Configured"), std::string::npos) << table.out;
  std::printf("%s", table.out.c_str());
  recorder.Stop();
  integration::DeleteNamespace(*env, ns);
}

}  // namespace
}  // namespace rdmastack::runtime
