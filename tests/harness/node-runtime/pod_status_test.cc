#include "tests/harness/node-runtime/pod_status.h"

#include <gtest/gtest.h>

namespace rdmastack::sim {
namespace {

using State = ContainerView::State;

ContainerView C(State state, int exit_code = 0, int restarts = 0) {
  ContainerView c;
  c.name = "c";
  c.state = state;
  c.terminated.exit_code = exit_code;
  c.restart_count = restarts;
  return c;
}

TEST(PodPhase, FollowsRestartPolicy) {
  EXPECT_EQ(PodPhase("Always", false, false, {C(State::kWaiting)}), "Pending");
  EXPECT_EQ(PodPhase("Always", true, true, {C(State::kWaiting)}), "Failed");
  EXPECT_EQ(PodPhase("Always", true, false, {C(State::kWaiting)}), "Pending");
  EXPECT_EQ(PodPhase("Always", true, false, {C(State::kRunning), C(State::kWaiting)}), "Pending");
  EXPECT_EQ(PodPhase("Always", true, false, {C(State::kRunning)}), "Running");
  EXPECT_EQ(PodPhase("Always", true, false, {C(State::kWaiting, 0, 1)}), "Running");  // back-off
  EXPECT_EQ(PodPhase("Always", true, false, {C(State::kTerminated, 1)}), "Running");
  EXPECT_EQ(PodPhase("OnFailure", true, false, {C(State::kTerminated, 1)}), "Running");
  EXPECT_EQ(PodPhase("OnFailure", true, false, {C(State::kTerminated, 0)}), "Succeeded");
  EXPECT_EQ(PodPhase("Never", true, false, {C(State::kTerminated, 0), C(State::kTerminated, 2)}),
            "Failed");
  EXPECT_EQ(PodPhase("Never", true, false, {C(State::kTerminated, 0), C(State::kRunning)}),
            "Running");
  EXPECT_EQ(PodPhase("Never", true, false, {C(State::kWaiting, 0, 1)}), "Pending");
}

TEST(StatusPatch, HasTheApiShape) {
  PodView pod;
  pod.phase = "Running";
  pod.host_ip = "198.18.200.10";
  pod.pod_ip = "198.18.200.10";
  pod.start_time = Clock::WallTime{std::chrono::seconds(1'800'000'000)};
  pod.conditions.push_back({"Ready", false, Clock::WallTime{std::chrono::seconds(1'800'000'000)},
                            "ContainersNotReady", "containers with unready status: [gw]"});
  pod.conditions.push_back(
      {"Initialized", true, Clock::WallTime{std::chrono::seconds(1'800'000'000)}, "", ""});
  ContainerView gw;
  gw.name = "gw";
  gw.image = "versity/versitygw:v1.8.0";
  gw.state = State::kRunning;
  gw.running_since = Clock::WallTime{std::chrono::seconds(1'800'000'001)};
  gw.container_id = "rdmastack-sim://4242";
  gw.started = true;
  gw.restart_count = 1;
  TerminatedView last;
  last.exit_code = 137;
  last.reason = "Error";
  last.started_at = Clock::WallTime{std::chrono::seconds(1'800'000'000)};
  last.finished_at = Clock::WallTime{std::chrono::seconds(1'800'000'001)};
  gw.last_termination = last;
  pod.containers.push_back(gw);
  EXPECT_EQ(
      StatusPatch(pod).Serialize(),
      R"({"status":{"phase":"Running","hostIP":"198.18.200.10","hostIPs":[{"ip":"198.18.200.10"}],)"
      R"("podIP":"198.18.200.10","podIPs":[{"ip":"198.18.200.10"}],"startTime":"2027-01-15T08:00:00Z",)"
      R"("conditions":[{"type":"Ready","status":"False","lastTransitionTime":"2027-01-15T08:00:00Z",)"
      R"("lastProbeTime":null,"reason":"ContainersNotReady","message":"containers with unready status: [gw]"},)"
      R"({"type":"Initialized","status":"True","lastTransitionTime":"2027-01-15T08:00:00Z","lastProbeTime":null,)"
      R"("reason":null,"message":null}],)"
      R"("containerStatuses":[{"name":"gw","image":"versity/versitygw:v1.8.0","imageID":"",)"
      R"("containerID":"rdmastack-sim://4242","ready":false,"started":true,"restartCount":1,)"
      R"("state":{"running":{"startedAt":"2027-01-15T08:00:01Z"}},)"
      R"("lastState":{"terminated":{"exitCode":137,"reason":"Error","startedAt":"2027-01-15T08:00:00Z",)"
      R"("finishedAt":"2027-01-15T08:00:01Z"}}}]}})");
}

TEST(StatusPatch, WaitingContainerCarriesReasonAndMessage) {
  PodView pod;
  pod.phase = "Pending";
  ContainerView c;
  c.name = "x";
  c.waiting_reason = "CreateContainerConfigError";
  c.waiting_message = "secret \"s\" not found";
  pod.containers.push_back(c);
  const k8s::JsonObject patch = StatusPatch(pod);
  EXPECT_EQ(patch.GetString({"status", "containerStatuses", "0", "state", "waiting", "reason"}),
            "CreateContainerConfigError");
  EXPECT_EQ(patch.GetString({"status", "containerStatuses", "0", "state", "waiting", "message"}),
            "secret \"s\" not found");
  EXPECT_FALSE(patch.Has({"status", "hostIP"}));
  EXPECT_FALSE(patch.Has({"status", "initContainerStatuses"}));
}

TEST(ContainerListMessage, MatchesTheKubelet) {
  EXPECT_EQ(ContainerListMessage("unready", {"a", "b"}), "containers with unready status: [a b]");
  EXPECT_EQ(ContainerListMessage("incomplete", {}), "containers with incomplete status: []");
}

}  // namespace
}  // namespace rdmastack::sim
