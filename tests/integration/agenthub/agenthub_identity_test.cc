// The hub against the real API server: an agent whose token is bound to a pod on its node is
// accepted (Ack, requirements, reports to the sink); every other kind of agent is refused with a
// clear status, a Warning event on the claimed Node, and no other write (from the audit log).
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "operator/k8s/api_error.h"
#include "tests/harness/audit_log.h"
#include "tests/integration/agenthub/hub_fixture.h"

namespace rdmastack::agenthub::testing {
namespace {

using std::chrono::seconds;

class AgentHubIdentityTest : public HubFixture {};

TEST_F(AgentHubIdentityTest, AcceptedAgentGetsAckRequirementsAndItsReportsReachTheSink) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  ASSERT_NO_FATAL_FAILURE(StartHub());
  pb::Requirements gateway;
  gateway.set_gateway(true);
  hub_->Publish(node_a_, gateway);  // before the agent connects: sent on accept

  const std::string uid = CreatePod("agent-a", node_a_);
  const std::string token = BoundToken("agent-a", uid);
  auto channel = TlsChannel(PublishedCa());
  AgentCall call = AgentCall::Open(channel, node_a_, token);
  pb::HubMessage m;
  ASSERT_TRUE(call.Read(&m)) << call.Drain().error_message();
  ASSERT_TRUE(m.has_ack());
  EXPECT_EQ(m.ack().heartbeat_seconds(), 7);
  EXPECT_EQ(m.ack().report_hash(), "");
  ASSERT_TRUE(call.Read(&m));
  ASSERT_TRUE(m.has_requirements());
  EXPECT_TRUE(m.requirements().gateway());
  EXPECT_TRUE(sink_.WaitFor("connected " + node_a_ + " agent-a", seconds(5)));

  ASSERT_TRUE(call.stream->Write(Report(node_a_, "hash-1")));
  ASSERT_TRUE(call.Read(&m));
  ASSERT_TRUE(m.has_ack());
  EXPECT_EQ(m.ack().report_hash(), "hash-1");
  EXPECT_TRUE(sink_.WaitFor("report " + node_a_ + " hash-1", seconds(5)));
  pb::AgentMessage heartbeat;
  heartbeat.mutable_heartbeat()->set_report_hash("hash-1");
  ASSERT_TRUE(call.stream->Write(heartbeat));
  EXPECT_TRUE(sink_.WaitFor("heartbeat " + node_a_, seconds(5)));

  // Requirements go down again only when they change.
  hub_->Publish(node_a_, gateway);
  pb::Requirements client;
  client.add_clients()->set_profile("ns/gpu");
  hub_->Publish(node_a_, client);
  ASSERT_TRUE(call.Read(&m));
  ASSERT_TRUE(m.has_requirements());
  EXPECT_FALSE(m.requirements().gateway());
  EXPECT_EQ(m.requirements().clients(0).profile(), "ns/gpu");

  const std::string metrics = metrics_.Render();
  EXPECT_NE(metrics.find("rdmastack_agenthub_connected_agents 1"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("rdmastack_agenthub_reports_received_total 1"), std::string::npos);
  EXPECT_NE(metrics.find("rdmastack_agenthub_token_reviews_total 1"), std::string::npos);

  // A second stream for the node replaces the first, which ends with ABORTED; the sink hears the
  // disconnect before the new connect. The same token is reviewed once.
  AgentCall second = AgentCall::Open(channel, node_a_, token);
  ASSERT_TRUE(second.Read(&m));
  ASSERT_TRUE(m.has_ack());
  const grpc::Status first_end = call.Drain();
  EXPECT_EQ(first_end.error_code(), grpc::StatusCode::ABORTED);
  EXPECT_NE(first_end.error_message().find("replaced by a newer stream"), std::string::npos)
      << first_end.error_message();
  const auto log = sink_.Log();
  const auto disconnected =
      std::find(log.begin(), log.end(), "disconnected " + node_a_ + " agent-a");
  ASSERT_NE(disconnected, log.end());
  EXPECT_NE(std::find(disconnected, log.end(), "connected " + node_a_ + " agent-a"), log.end());
  EXPECT_NE(metrics_.Render().find("rdmastack_agenthub_token_reviews_total 1"), std::string::npos);
  EXPECT_EQ(hub_->connected_agents(), 1u);

  second.stream->WritesDone();
  EXPECT_TRUE(second.Drain().ok());
  EXPECT_TRUE(
      rdmastack::testing::Eventually([&] { return hub_->connected_agents() == 0; }, seconds(5)));
}

// With the operator's policy (a DaemonSet named), a pod that merely runs as the agent's
// ServiceAccount is refused; the DaemonSet's own pod on the same node is accepted.
TEST_F(AgentHubIdentityTest, OnlyTheAgentDaemonSetsPodsAreAccepted) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  ASSERT_NO_FATAL_FAILURE(
      StartHub([](AgentHubOptions& o) { o.policy.daemonset_name = "rdmastack-agent"; }));
  auto channel = TlsChannel(PublishedCa());
  const std::string bare_uid = CreatePod("agent-bare", node_a_);
  {
    AgentCall call = AgentCall::Open(channel, node_a_, BoundToken("agent-bare", bare_uid));
    const grpc::Status end = call.Drain();
    std::printf("bare pod -> %d %s\n", static_cast<int>(end.error_code()),
                end.error_message().c_str());
    EXPECT_EQ(end.error_code(), grpc::StatusCode::PERMISSION_DENIED) << end.error_message();
    EXPECT_NE(end.error_message().find("controlled by nothing, not by DaemonSet " + ns_ +
                                       "/rdmastack-agent, which does not exist"),
              std::string::npos)
        << end.error_message();
  }

  auto ds = k8s::JsonObject::Parse(R"({"apiVersion": "apps/v1", "kind": "DaemonSet",
    "metadata": {"name": "rdmastack-agent"},
    "spec": {"selector": {"matchLabels": {"app": "agent-under-test"}},
      "template": {"metadata": {"labels": {"app": "agent-under-test"}},
        "spec": {"serviceAccountName": "rdmastack-agent",
                 "containers": [{"name": "agent", "image": "rdmastack.invalid/agent:1"}],
                 "tolerations": [{"operator": "Exists"}]}}}})");
  ASSERT_TRUE(ds.ok());
  ds->SetNamespace(ns_);
  ASSERT_TRUE(
      ds->SetString({"spec", "template", "spec", "nodeSelector", "kubernetes.io/hostname"}, node_a_)
          .ok());
  ASSERT_TRUE(admin_->Create(k8s::kinds::DaemonSet(), *ds).ok());
  std::string pod_name, pod_uid;
  ASSERT_TRUE(rdmastack::testing::Eventually(
      [&] {
        k8s::ListOptions options;
        options.label_selector = "app=agent-under-test";
        auto pods = admin_->List(k8s::kinds::Pod(), ns_, options);
        if (!pods.ok() || pods->items.empty()) return false;
        pod_name = std::string(pods->items[0].Name());
        pod_uid = std::string(pods->items[0].Uid());
        return true;
      },
      seconds(60)))
      << "the DaemonSet controller made no pod on " << node_a_;
  {
    AgentCall call = AgentCall::Open(channel, node_a_, BoundToken(pod_name, pod_uid));
    pb::HubMessage m;
    ASSERT_TRUE(call.Read(&m)) << call.Drain().error_message();
    EXPECT_TRUE(m.has_ack());
    EXPECT_TRUE(sink_.WaitFor("connected " + node_a_ + " " + pod_name, seconds(5)));
    call.stream->WritesDone();
    call.Drain();
  }
  // The bare pod stays refused now that the DaemonSet exists.
  AgentCall again = AgentCall::Open(channel, node_a_, BoundToken("agent-bare", bare_uid));
  const grpc::Status end = again.Drain();
  EXPECT_EQ(end.error_code(), grpc::StatusCode::PERMISSION_DENIED) << end.error_message();
  EXPECT_NE(
      metrics_.Render().find("rdmastack_agenthub_streams_refused_total{reason=\"NotAgentPod\"} 2"),
      std::string::npos)
      << metrics_.Render();
}

struct Refusal {
  std::string name;
  std::string node;  // claimed
  std::string token;
  grpc::StatusCode code;
  std::string reason;  // metric label and event reason
  std::string message_part;
};

TEST_F(AgentHubIdentityTest, RefusedAgentsGetAClearStatusAWarningEventAndNothingIsWritten) {
  RDMASTACK_REQUIRE_CLUSTER(env);
  ASSERT_NO_FATAL_FAILURE(StartHub());
  CreateServiceAccount("intruder");
  const std::string uid_a = CreatePod("agent-a", node_a_);
  const std::string uid_intruder = CreatePod("intruder-a", node_a_, "intruder");
  const std::string uid_gone = CreatePod("agent-gone", node_a_);
  const std::string gone_token = BoundToken("agent-gone", uid_gone);
  ASSERT_TRUE(admin_
                  ->Delete(k8s::kinds::Pod(), ns_, "agent-gone",
                           k8s::DeleteOptions{.grace_period_seconds = 0})
                  .ok());
  ASSERT_TRUE(rdmastack::testing::Eventually(
      [&] { return k8s::IsNotFound(admin_->Get(k8s::kinds::Pod(), ns_, "agent-gone").status()); },
      seconds(30)));
  const auto since = std::chrono::system_clock::now();

  // "Expired" is not here: TokenRequest's shortest lifetime is 10 minutes. The hub refuses a
  // token past its exp claim before any review (token_reviewer_test, fake clock), and the API
  // server's own "token is expired" answer maps to TokenExpired (admission_test).
  const std::vector<Refusal> cases = {
      {"token bound to a pod on node A, claiming node B", node_b_, BoundToken("agent-a", uid_a),
       grpc::StatusCode::PERMISSION_DENIED, "NodeMismatch", "but Hello claims node " + node_b_},
      {"token of another ServiceAccount", node_a_,
       BoundToken("intruder-a", uid_intruder, kAudience, "intruder"),
       grpc::StatusCode::PERMISSION_DENIED, "WrongServiceAccount", ":intruder"},
      {"token for another audience", node_a_, BoundToken("agent-a", uid_a, "other-audience"),
       grpc::StatusCode::UNAUTHENTICATED, "WrongAudience", "did not authenticate"},
      {"no token", node_a_, "", grpc::StatusCode::UNAUTHENTICATED, "NoToken", "no token"},
      {"token whose pod was deleted", node_a_, gone_token, grpc::StatusCode::UNAUTHENTICATED, "",
       ""},
  };
  auto channel = TlsChannel(PublishedCa());
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    AgentCall call = AgentCall::Open(channel, c.node, c.token);
    const grpc::Status end = call.Drain();
    std::printf("%-50s -> %d %s\n", c.name.c_str(), static_cast<int>(end.error_code()),
                end.error_message().c_str());
    EXPECT_EQ(end.error_code(), c.code) << end.error_message();
    EXPECT_NE(end.error_message().find(c.message_part), std::string::npos) << end.error_message();
    if (!c.reason.empty()) {
      EXPECT_NE(metrics_.Render().find("rdmastack_agenthub_streams_refused_total{reason=\"" +
                                       c.reason + "\"} 1"),
                std::string::npos)
          << metrics_.Render();
    }
  }

  // A plain-TCP client never gets as far as Hello: the TLS handshake fails.
  {
    auto plain = grpc::CreateChannel("127.0.0.1:" + std::to_string(hub_->port()),
                                     grpc::InsecureChannelCredentials());
    AgentCall call = AgentCall::Open(plain, node_a_, BoundToken("agent-a", uid_a));
    const grpc::Status end = call.Drain();
    std::printf("%-50s -> %d %s\n", "plain TCP", static_cast<int>(end.error_code()),
                end.error_message().c_str());
    EXPECT_EQ(end.error_code(), grpc::StatusCode::UNAVAILABLE) << end.error_message();
  }
  for (const auto& line : sink_.Log()) ADD_FAILURE() << "the sink heard " << line;

  // The Warning events, on the claimed Nodes, are the only writes.
  events_->Flush();
  std::vector<rdmastack::testing::AuditedWrite> writes;
  ASSERT_TRUE(rdmastack::testing::Eventually(
      [&] {
        writes.clear();
        for (const auto& w : rdmastack::testing::WritesByAgent(
                 rdmastack::testing::ReadAuditedWrites(), hub_user_agent_)) {
          if (w.received >= since) writes.push_back(w);
        }
        return writes.size() >= 5;
      },
      seconds(20)))
      << "expected one event per refused agent";
  std::set<std::string> resources;
  for (const auto& w : writes) resources.insert(w.resource + " " + w.verb);
  EXPECT_EQ(resources, (std::set<std::string>{"events create"}));

  auto listed = admin_->List(k8s::kinds::EventsV1(), "default");
  ASSERT_TRUE(listed.ok());
  std::set<std::string> seen;
  for (const auto& e : listed->items) {
    if (e.GetString({"reportingController"}) != "rdmastack.io/agenthub-integration-test" ||
        e.GetString({"reportingInstance"}) != ns_) {
      continue;
    }
    EXPECT_EQ(e.GetString({"type"}), "Warning");
    EXPECT_EQ(e.GetString({"regarding", "kind"}), "Node");
    seen.insert(e.GetString({"reason"}).value_or("") + " " +
                e.GetString({"regarding", "name"}).value_or(""));
  }
  EXPECT_TRUE(seen.count("NodeMismatch " + node_b_)) << ::testing::PrintToString(seen);
  EXPECT_TRUE(seen.count("WrongServiceAccount " + node_a_));
  EXPECT_TRUE(seen.count("NoToken " + node_a_));
}

}  // namespace
}  // namespace rdmastack::agenthub::testing
